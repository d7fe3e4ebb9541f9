/**
 * End-to-end over HTTPS for every apps/v1 and batch/v1 kind: create (defaults), get in JSON and
 * Protobuf, list as Table, update (generation), the status subresource, the four patch types,
 * watch, delete and validation errors.
 */
import assert from "node:assert/strict";
import { decodeObject, encodeObject } from "../../shared/codec/protobuf/mod.ts";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import { API_ONLY_FLAGS } from "../support/api_only.ts";
import { type Json, watch, write } from "./_watch_helpers.ts";

const PB = "application/vnd.kubernetes.protobuf";
const TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io";

function template(app: string, restartPolicy?: string) {
  return {
    metadata: { labels: { app } },
    spec: {
      ...(restartPolicy ? { restartPolicy } : {}),
      containers: [{ name: app, image: `${app}:1.0` }],
    },
  };
}

interface Case {
  kind: string;
  path: string;
  body: Json;
  columns: string[];
  /** A spec change that is valid on update. */
  specPatch: Json;
  status?: Json;
}

const APPS = "/apis/apps/v1/namespaces/default";
const BATCH = "/apis/batch/v1/namespaces/default";
const WIDE = ["Containers", "Images", "Selector"];

const CASES: Case[] = [
  {
    kind: "Deployment",
    path: `${APPS}/deployments`,
    body: { spec: { selector: { matchLabels: { app: "d" } }, template: template("d") } },
    columns: ["Name", "Ready", "Up-to-date", "Available", "Age", ...WIDE],
    specPatch: { spec: { minReadySeconds: 5 } },
    status: { replicas: 1, readyReplicas: 1 },
  },
  {
    kind: "ReplicaSet",
    path: `${APPS}/replicasets`,
    body: { spec: { selector: { matchLabels: { app: "r" } }, template: template("r") } },
    columns: ["Name", "Desired", "Current", "Ready", "Age", ...WIDE],
    specPatch: { spec: { replicas: 4 } },
    status: { replicas: 2, readyReplicas: 1 },
  },
  {
    kind: "StatefulSet",
    path: `${APPS}/statefulsets`,
    body: { spec: { selector: { matchLabels: { app: "s" } }, template: template("s") } },
    columns: ["Name", "Ready", "Age", "Containers", "Images"],
    specPatch: { spec: { replicas: 2 } },
    status: { replicas: 1, readyReplicas: 1, availableReplicas: 1 },
  },
  {
    kind: "DaemonSet",
    path: `${APPS}/daemonsets`,
    body: { spec: { selector: { matchLabels: { app: "ds" } }, template: template("ds") } },
    columns: [
      "Name",
      "Desired",
      "Current",
      "Ready",
      "Up-to-date",
      "Available",
      "Node Selector",
      "Age",
      ...WIDE,
    ],
    specPatch: { spec: { minReadySeconds: 3 } },
    status: { desiredNumberScheduled: 2, currentNumberScheduled: 1 },
  },
  {
    kind: "ControllerRevision",
    path: `${APPS}/controllerrevisions`,
    body: { data: { any: "thing" }, revision: 3 },
    columns: ["Name", "Controller", "Revision", "Age"],
    specPatch: { revision: 4 },
  },
  {
    kind: "Job",
    path: `${BATCH}/jobs`,
    body: { spec: { template: template("j", "Never") } },
    columns: ["Name", "Status", "Completions", "Duration", "Age", ...WIDE],
    specPatch: { spec: { activeDeadlineSeconds: 60 } },
    status: { active: 1 },
  },
  {
    kind: "CronJob",
    path: `${BATCH}/cronjobs`,
    body: {
      spec: {
        schedule: "0 * * * *",
        jobTemplate: { spec: { template: template("c", "OnFailure") } },
      },
    },
    columns: [
      "Name",
      "Schedule",
      "Timezone",
      "Suspend",
      "Active",
      "Last Schedule",
      "Age",
      ...WIDE,
    ],
    specPatch: { spec: { suspend: true } },
    status: { lastScheduleTime: "2025-01-01T00:00:00Z" },
  },
];

async function withServer(fn: (t: TestServer) => Promise<void>) {
  // The workload controllers would write status between a test's GET and PUT.
  const t = await startTestServer(API_ONLY_FLAGS);
  try {
    await fn(t);
  } finally {
    await t.close();
  }
}

async function patch(t: TestServer, path: string, type: string, body: unknown, query = "") {
  const res = await t.fetch(`${path}${query}`, {
    method: "PATCH",
    headers: { "content-type": type },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const json = await res.json();
  assert.equal(res.status, 200, `PATCH ${path} (${type}): ${JSON.stringify(json)}`);
  return json;
}

async function checkFormats(t: TestServer, c: Case, name: string): Promise<void> {
  const asJson = await (await t.fetch(`${c.path}/${name}`)).json();
  const res = await t.fetch(`${c.path}/${name}`, { headers: { accept: PB } });
  assert.equal(res.headers.get("content-type"), PB, c.kind);
  const asPb = decodeObject(new Uint8Array(await res.arrayBuffer()));
  assert.deepEqual(asPb, asJson, c.kind);
  const put = await t.fetch(`${c.path}/${name}`, {
    method: "PUT",
    headers: { "content-type": PB, accept: "application/json" },
    body: encodeObject(asPb),
  });
  assert.equal(put.status, 200, `${c.kind}: ${await put.clone().text()}`);
  assert.deepEqual(await put.json(), asJson, c.kind);
  const table = await (await t.fetch(c.path, { headers: { accept: TABLE } })).json();
  assert.equal(table.kind, "Table");
  assert.deepEqual(table.columnDefinitions.map((d: Json) => d.name), c.columns, c.kind);
  assert.equal(table.rows[0].cells.length, c.columns.length, c.kind);
  assert.equal(table.rows[0].cells[0], name);
}

async function checkPatches(t: TestServer, c: Case, name: string): Promise<void> {
  const path = `${c.path}/${name}`;
  const merged = await patch(t, path, "application/merge-patch+json", {
    metadata: { labels: { merge: "yes" } },
  });
  assert.equal(merged.metadata.labels.merge, "yes");
  const jp = await patch(t, path, "application/json-patch+json", [
    { op: "add", path: "/metadata/annotations", value: { json: "yes" } },
  ]);
  assert.equal(jp.metadata.annotations.json, "yes");
  const smp = await patch(t, path, "application/strategic-merge-patch+json", {
    metadata: { labels: { smp: "yes" } },
  });
  assert.deepEqual([smp.metadata.labels.merge, smp.metadata.labels.smp], ["yes", "yes"]);
  const applied = await patch(
    t,
    path,
    "application/apply-patch+yaml",
    JSON.stringify({
      apiVersion: c.kind === "Job" || c.kind === "CronJob" ? "batch/v1" : "apps/v1",
      kind: c.kind,
      metadata: { name, labels: { applied: "yes" } },
    }),
    "?fieldManager=tester",
  );
  assert.equal(applied.metadata.labels.applied, "yes");
  assert.ok(
    applied.metadata.managedFields.some((m: Json) => m.manager === "tester"),
    `${c.kind}: apply manager`,
  );
}

async function checkUpdates(t: TestServer, c: Case, name: string): Promise<void> {
  const path = `${c.path}/${name}`;
  const before = await (await t.fetch(path)).json();
  const next = await patch(t, path, "application/merge-patch+json", c.specPatch);
  if (c.status) {
    assert.equal(next.metadata.generation, before.metadata.generation + 1, c.kind);
    // Status goes through the status subresource only; the generation stays.
    const viaMain = await patch(t, path, "application/merge-patch+json", { status: c.status });
    assert.notDeepEqual(viaMain.status, { ...before.status, ...c.status }, c.kind);
    const viaStatus = await patch(t, `${path}/status`, "application/merge-patch+json", {
      status: c.status,
    });
    for (const [k, v] of Object.entries(c.status)) assert.deepEqual(viaStatus.status[k], v);
    assert.equal(viaStatus.metadata.generation, next.metadata.generation, c.kind);
  }
}

Deno.test("apps/v1 and batch/v1 kinds serve every verb in JSON, Protobuf and Table", async () => {
  await withServer(async (t) => {
    for (const c of CASES) {
      const name = c.kind.toLowerCase();
      const w = await watch(t, "watch=true", c.path);
      const created = await write(t, "POST", c.path, {
        ...c.body,
        metadata: { name, namespace: "default" },
      });
      assert.equal(created.metadata.generation, 1, c.kind);
      const added = await w.next();
      assert.equal(added?.type, "ADDED", c.kind);
      await checkFormats(t, c, name);
      await checkPatches(t, c, name);
      await checkUpdates(t, c, name);
      const modified = await w.next();
      assert.equal(modified?.type, "MODIFIED", c.kind);
      const del = await t.fetch(`${c.path}/${name}`, { method: "DELETE" });
      assert.equal(del.status, 200, c.kind);
      await del.body?.cancel();
      let ev = await w.next();
      while (ev && ev.type !== "DELETED") ev = await w.next();
      assert.equal(ev?.type, "DELETED", c.kind);
      await w.cancel();
    }
  });
});

Deno.test("the scale subresource serves autoscaling/v1 Scale for get, update and patch", async () => {
  await withServer(async (t) => {
    const d = `${APPS}/deployments`;
    await write(t, "POST", d, { metadata: { name: "web" }, ...CASES[0].body });
    const scale = await (await t.fetch(`${d}/web/scale`)).json();
    assert.equal(scale.apiVersion, "autoscaling/v1");
    assert.equal(scale.kind, "Scale");
    assert.deepEqual(scale.spec, { replicas: 1 });
    assert.deepEqual(scale.status, { replicas: 0, selector: "app=d" });
    const put = await write(t, "PUT", `${d}/web/scale`, { ...scale, spec: { replicas: 5 } });
    assert.equal(put.kind, "Scale");
    assert.equal(put.spec.replicas, 5);
    const patched = await patch(t, `${d}/web/scale`, "application/merge-patch+json", {
      spec: { replicas: 2 },
    });
    assert.equal(patched.spec.replicas, 2);
    const smp = await patch(t, `${d}/web/scale`, "application/strategic-merge-patch+json", {
      spec: { replicas: 3 },
    });
    assert.equal(smp.spec.replicas, 3);
    const dep = await (await t.fetch(`${d}/web`)).json();
    assert.equal(dep.spec.replicas, 3);
    assert.equal(dep.metadata.generation, 4);
    const pb = await t.fetch(`${d}/web/scale`, { headers: { accept: PB } });
    assert.equal(pb.headers.get("content-type"), PB);
    const decoded = decodeObject(new Uint8Array(await pb.arrayBuffer()));
    assert.equal(decoded.kind, "Scale");
    const neg = await t.fetch(`${d}/web/scale`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...scale, metadata: { name: "web" }, spec: { replicas: -1 } }),
    });
    assert.equal(neg.status, 422);
    const status = await neg.json();
    assert.equal(
      status.message,
      'Scale.autoscaling "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    );
    const stale = await t.fetch(`${d}/web/scale`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(scale),
    });
    assert.equal(stale.status, 409);
    await stale.body?.cancel();
    const disc = await (await t.fetch("/apis/apps/v1")).json();
    const sub = disc.resources.find((r: Json) => r.name === "deployments/scale");
    assert.deepEqual(
      [sub.group, sub.version, sub.kind],
      ["autoscaling", "v1", "Scale"],
    );
  });
});

async function invalid(t: TestServer, path: string, body: Json): Promise<string> {
  const res = await t.fetch(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  assert.equal(res.status, 422, JSON.stringify(json));
  return json.message;
}

Deno.test("apps/v1 and batch/v1 kinds reject invalid objects with Kubernetes' messages", async () => {
  await withServer(async (t) => {
    const d = `${APPS}/deployments`;
    assert.equal(
      await invalid(t, d, { metadata: { name: "a" }, spec: { template: template("a") } }),
      'Deployment.apps "a" is invalid: spec.selector: Required value',
    );
    assert.equal(
      await invalid(t, d, {
        metadata: { name: "b" },
        spec: { selector: { matchLabels: { app: "x" } }, template: template("b") },
      }),
      'Deployment.apps "b" is invalid: spec.template.metadata.labels: Invalid value: {"app":"b"}: `selector` does not match template `labels`',
    );
    assert.match(
      await invalid(t, d, {
        metadata: { name: "c" },
        spec: { replicas: -1, ...CASES[0].body.spec },
      }),
      /spec.replicas: Invalid value: -1: must be greater than or equal to 0/,
    );
    await write(t, "POST", d, { metadata: { name: "keep" }, ...CASES[0].body });
    const res = await t.fetch(`${d}/keep`, {
      method: "PATCH",
      headers: { "content-type": "application/merge-patch+json" },
      body: JSON.stringify({
        spec: { selector: { matchLabels: { app: "d", x: "y" } } },
      }),
    });
    assert.equal(res.status, 422);
    assert.match((await res.json()).message, /spec.selector: Invalid value: .*field is immutable/);
    assert.equal(
      await invalid(t, `${BATCH}/jobs`, {
        metadata: { name: "j" },
        spec: { template: template("j") },
      }),
      'Job.batch "j" is invalid: spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"',
    );
    assert.equal(
      await invalid(t, `${BATCH}/cronjobs`, {
        metadata: { name: "c" },
        spec: {
          schedule: "61 * * * *",
          jobTemplate: { spec: { template: template("c", "Never") } },
        },
      }),
      'CronJob.batch "c" is invalid: spec.schedule: Invalid value: "61 * * * *": end of range (61) above maximum (59): 61',
    );
    assert.match(
      await invalid(t, `${APPS}/statefulsets`, {
        metadata: { name: "Bad.Name" },
        spec: CASES[2].body.spec,
      }),
      /metadata.name: Invalid value: "Bad.Name"/,
    );
  });
});
