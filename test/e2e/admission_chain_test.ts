/**
 * End-to-end: the admission chain on every write path (POST, PUT, every patch type, apply,
 * subresources with their views and bodies, DELETE, deletecollection per item, CONNECT), in
 * kube's order (mutating, then the kind's validation, then validating), with a probe plugin
 * that records what it sees; rejections rendered as kube renders them; the admission metrics.
 */
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import { API_ONLY_FLAGS } from "../support/api_only.ts";
import { jsonCall, jsonOk } from "../support/json_call.ts";
import { StatusError } from "../../shared/errors/status_error.ts";
import type {
  AdmissionAttributes,
  AdmissionPlugin,
} from "../../apiserver/registry/generic/admission.ts";

interface Seen {
  phase: "admit" | "validate";
  operation: string;
  resource: string;
  subresource: string;
  name: string;
  objectKind?: string;
  optionsKind?: string;
  dryRun: boolean;
  uid?: string;
}

/** Records every call (for the probe namespace), mutates and rejects on labels. */
function probe(seen: Seen[]): AdmissionPlugin {
  const record = (phase: Seen["phase"], a: Readonly<AdmissionAttributes>) => {
    if (a.namespace !== "probe" && a.name !== "probe") return;
    seen.push({
      phase,
      operation: a.operation,
      resource: a.kind.plural,
      subresource: a.subresource,
      name: a.name,
      objectKind: a.object?.kind,
      optionsKind: a.options?.kind as string | undefined,
      dryRun: a.dryRun,
      uid: a.uid,
    });
  };
  return {
    name: "Probe",
    admit(a) {
      record("admit", a);
      const labels = a.object?.metadata?.labels;
      if (labels?.mutate) labels.mutated = "by-admit";
      if (labels?.["make-invalid"]) labels.bad = "not a valid label value!";
    },
    validate(a) {
      record("validate", a);
      if (a.object?.metadata?.labels?.reject) {
        throw StatusError.forbidden(
          { group: a.kind.group, resource: a.kind.plural },
          a.name,
          "the probe says no",
        );
      }
    },
  };
}

async function withProbe(fn: (t: TestServer, seen: Seen[]) => Promise<void>): Promise<void> {
  const seen: Seen[] = [];
  const t = await startTestServer(API_ONLY_FLAGS, {
    optionsHook: (o) => o.admission.extraPlugins = [probe(seen)],
  });
  try {
    await jsonOk(t, "POST", "/api/v1/namespaces", { metadata: { name: "probe" } });
    seen.length = 0;
    await fn(t, seen);
  } finally {
    await t.close();
  }
}

const CM = "/api/v1/namespaces/probe/configmaps";
const ops = (seen: Seen[]) => seen.map((s) => `${s.phase} ${s.operation} ${s.subresource}`);

Deno.test("admission chain: create runs mutating, then validation, then validating, with CreateOptions", async () => {
  await withProbe(async (t, seen) => {
    const made = await jsonOk(t, "POST", `${CM}?fieldManager=me&fieldValidation=Strict`, {
      metadata: { name: "a", labels: { mutate: "yes" } },
    });
    assert.equal(made.metadata.labels.mutated, "by-admit");
    assert.deepEqual(ops(seen), ["admit CREATE ", "validate CREATE "]);
    assert.equal(seen[0].optionsKind, "CreateOptions");
    assert.ok(seen[0].uid && seen[0].uid === seen[1].uid);
    seen.length = 0;
    // A mutation the kind's validation refuses is 422, and the validating phase never runs.
    const bad = await jsonCall(t, "POST", CM, {
      metadata: { name: "b", labels: { "make-invalid": "x" } },
    });
    assert.equal(bad.status, 422, JSON.stringify(bad.json));
    assert.deepEqual(ops(seen), ["admit CREATE "]);
    const refused = await jsonCall(t, "POST", CM, {
      metadata: { name: "c", labels: { reject: "y" } },
    });
    assert.equal(refused.status, 403);
    assert.equal(refused.json.reason, "Forbidden");
    assert.equal(refused.json.message, 'configmaps "c" is forbidden: the probe says no');
    const dry = await jsonOk(t, "POST", `${CM}?dryRun=All`, { metadata: { name: "d" } });
    assert.equal(dry.metadata.name, "d");
    assert.equal(seen.at(-1)!.dryRun, true);
  });
});

Deno.test("admission chain: PUT, every patch type and apply are UPDATE with UpdateOptions", async () => {
  await withProbe(async (t, seen) => {
    await jsonOk(t, "POST", CM, { metadata: { name: "a" }, data: { k: "v" } });
    seen.length = 0;
    await jsonOk(t, "PUT", `${CM}/a`, { metadata: { name: "a" }, data: { k: "2" } });
    for (
      const [type, body] of [
        ["application/json-patch+json", [{ op: "add", path: "/data/j", value: "1" }]],
        ["application/merge-patch+json", { data: { m: "1" } }],
        ["application/strategic-merge-patch+json", { data: { s: "1" } }],
      ] as const
    ) {
      const r = await jsonCall(t, "PATCH", `${CM}/a`, body, { "content-type": type });
      assert.equal(r.status, 200, JSON.stringify(r.json));
    }
    const apply = await jsonCall(
      t,
      "PATCH",
      `${CM}/a?fieldManager=x&force=true`,
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a" }, data: { x: "1" } },
      { "content-type": "application/apply-patch+yaml" },
    );
    assert.equal(apply.status, 200, JSON.stringify(apply.json));
    assert.equal(seen.filter((s) => s.phase === "admit").length, 5);
    assert.ok(seen.every((s) => s.operation === "UPDATE" && s.optionsKind === "UpdateOptions"));
    seen.length = 0;
    // Apply of a missing object creates it: CREATE.
    const created = await jsonCall(
      t,
      "PATCH",
      `${CM}/new?fieldManager=x`,
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "new" } },
      { "content-type": "application/apply-patch+yaml" },
    );
    assert.equal(created.status, 201, JSON.stringify(created.json));
    assert.deepEqual(ops(seen), ["admit CREATE ", "validate CREATE "]);
    seen.length = 0;
    const refused = await jsonCall(
      t,
      "PATCH",
      `${CM}/a`,
      { metadata: { labels: { reject: "1" } } },
      {
        "content-type": "application/merge-patch+json",
      },
    );
    assert.equal(refused.status, 403);
    assert.equal(refused.json.message, 'configmaps "a" is forbidden: the probe says no');
  });
});

Deno.test("admission chain: DELETE and deletecollection (one DELETE per item) with DeleteOptions", async () => {
  await withProbe(async (t, seen) => {
    for (const name of ["a", "b", "c"]) {
      await jsonOk(t, "POST", CM, { metadata: { name, labels: { set: "x" } } });
    }
    seen.length = 0;
    await jsonOk(t, "DELETE", `${CM}/a`);
    assert.deepEqual(ops(seen), ["admit DELETE ", "validate DELETE "]);
    assert.equal(seen[0].optionsKind, "DeleteOptions");
    assert.equal(seen[0].objectKind, undefined);
    seen.length = 0;
    await jsonOk(t, "DELETE", `${CM}?labelSelector=set%3Dx`);
    assert.deepEqual(seen.filter((s) => s.phase === "validate").map((s) => s.name).sort(), [
      "b",
      "c",
    ]);
  });
});

Deno.test("admission chain: status and scale subresources (scale admitted as autoscaling/v1 Scale)", async () => {
  await withProbe(async (t, seen) => {
    const dep = "/apis/apps/v1/namespaces/probe/deployments";
    await jsonOk(t, "POST", dep, {
      metadata: { name: "d" },
      spec: {
        selector: { matchLabels: { app: "d" } },
        template: {
          metadata: { labels: { app: "d" } },
          spec: { containers: [{ name: "c", image: "nginx" }] },
        },
      },
    });
    seen.length = 0;
    const scale = await jsonCall(t, "PATCH", `${dep}/d/scale`, { spec: { replicas: 3 } }, {
      "content-type": "application/merge-patch+json",
    });
    assert.equal(scale.status, 200, JSON.stringify(scale.json));
    assert.deepEqual(ops(seen), ["admit UPDATE scale", "validate UPDATE scale"]);
    assert.ok(seen.every((s) => s.objectKind === "Scale"));
    seen.length = 0;
    const status = await jsonCall(t, "PATCH", `${dep}/d/status`, { status: { replicas: 0 } }, {
      "content-type": "application/merge-patch+json",
    });
    assert.equal(status.status, 200, JSON.stringify(status.json));
    assert.deepEqual(ops(seen), ["admit UPDATE status", "validate UPDATE status"]);
    assert.equal(seen[0].objectKind, "Deployment");
  });
});

Deno.test("admission chain: subresource creates (binding, eviction, token) admit their bodies", async () => {
  await withProbe(async (t, seen) => {
    const pods = "/api/v1/namespaces/probe/pods";
    await jsonOk(t, "POST", "/api/v1/namespaces/probe/serviceaccounts", {
      metadata: { name: "sa" },
    });
    await jsonOk(t, "POST", pods, {
      metadata: { name: "p" },
      spec: { serviceAccountName: "sa", containers: [{ name: "c", image: "nginx" }] },
    });
    seen.length = 0;
    await jsonOk(t, "POST", `${pods}/p/binding`, {
      apiVersion: "v1",
      kind: "Binding",
      metadata: { name: "p" },
      target: { kind: "Node", name: "n1" },
    });
    assert.deepEqual(ops(seen), ["admit CREATE binding", "validate CREATE binding"]);
    assert.equal(seen[0].objectKind, "Binding");
    seen.length = 0;
    const token = await jsonCall(t, "POST", "/api/v1/namespaces/probe/serviceaccounts/sa/token", {
      spec: { audiences: ["x"] },
    });
    assert.equal(token.status, 201, JSON.stringify(token.json));
    assert.deepEqual(ops(seen), ["admit CREATE token", "validate CREATE token"]);
    seen.length = 0;
    const evicted = await jsonCall(t, "POST", `${pods}/p/eviction`, {
      apiVersion: "policy/v1",
      kind: "Eviction",
      metadata: { name: "p" },
    });
    assert.equal(evicted.status, 201, JSON.stringify(evicted.json));
    assert.deepEqual(ops(seen).slice(0, 2), ["admit CREATE eviction", "validate CREATE eviction"]);
    assert.equal(seen[0].objectKind, "Eviction");
    const refused = await jsonCall(t, "POST", `${pods}/p/binding`, {
      metadata: { name: "p", labels: { reject: "1" } },
      target: { kind: "Node", name: "n1" },
    });
    assert.equal(refused.status, 403);
  });
});

Deno.test("admission chain: connect subresources are admitted as CONNECT before they are served", async () => {
  await withProbe(async (t, seen) => {
    await jsonOk(t, "POST", "/api/v1/namespaces/probe/pods", {
      metadata: { name: "p" },
      spec: { containers: [{ name: "c", image: "nginx" }] },
    });
    seen.length = 0;
    const res = await t.fetch(
      "/api/v1/namespaces/probe/pods/p/exec?command=ls&command=-l&stdout=true&container=c",
      { method: "POST" },
    );
    await res.body?.cancel();
    // Admitted, then refused: the pod is on no node.
    assert.equal(res.status, 400);
    assert.deepEqual(ops(seen), ["admit CONNECT exec", "validate CONNECT exec"]);
    assert.equal(seen[0].objectKind, "PodExecOptions");
    assert.equal(seen[0].optionsKind, undefined);
  });
});

Deno.test("admission metrics: per step and per plugin on /metrics", async () => {
  await withProbe(async (t) => {
    await jsonOk(t, "POST", CM, { metadata: { name: "m" } });
    await jsonCall(t, "POST", CM, { metadata: { name: "n", labels: { reject: "1" } } });
    const res = await t.fetch("/metrics");
    const text = await res.text();
    assert.match(
      text,
      /apiserver_admission_step_admission_duration_seconds_bucket\{operation="CREATE",rejected="false",type="admit",le="0.005"\}/,
    );
    assert.match(
      text,
      /apiserver_admission_controller_admission_duration_seconds_count\{name="Probe",operation="CREATE",rejected="true",type="validate"\} 1/,
    );
    assert.match(
      text,
      /apiserver_admission_controller_admission_duration_seconds_count\{name="NamespaceLifecycle",operation="CREATE",rejected="false",type="validate"\}/,
    );
    assert.match(text, /le="2.5"/);
  });
});
