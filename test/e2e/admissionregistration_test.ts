/**
 * End-to-end over HTTPS for the admissionregistration.k8s.io/v1 kinds: create (defaults), get in
 * JSON and Protobuf, list as Table, update, the four patch types, watch, delete, validation errors
 * (bad CEL expressions among them) and kubectl get.
 */
import assert from "node:assert/strict";
import { decodeObject, encodeObject } from "../../shared/codec/protobuf/mod.ts";
import {
  kubectlFor,
  kubectlOk as ok,
  runKubectl as kubectl,
  skipWithoutKubectl,
} from "../support/kubectl.ts";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import { type Json, watch, write } from "./_watch_helpers.ts";

const PB = "application/vnd.kubernetes.protobuf";
const TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io";
const GROUP = "/apis/admissionregistration.k8s.io/v1";

const RULE = {
  operations: ["CREATE"],
  apiGroups: [""],
  apiVersions: ["v1"],
  resources: ["configmaps"],
};

function webhook(name: string, extra: Json = {}): Json {
  return {
    name,
    clientConfig: { service: { namespace: "default", name: "hook" } },
    rules: [RULE],
    sideEffects: "None",
    admissionReviewVersions: ["v1"],
    ...extra,
  };
}

const POLICY_SPEC = {
  matchConstraints: { resourceRules: [RULE] },
  validations: [{ expression: "object.data.size() < 10", message: "too many keys" }],
};

const BINDING_SPEC = { policyName: "demo.example.com", validationActions: ["Deny"] };

interface Case {
  kind: string;
  plural: string;
  body: Json;
  columns: string[];
  /** The row's cells after the name, without the age. */
  cells: unknown[];
  /** Asserts the defaults of the created object. */
  defaults(o: Json): void;
}

const CASES: Case[] = [
  {
    kind: "ValidatingWebhookConfiguration",
    plural: "validatingwebhookconfigurations",
    body: { webhooks: [webhook("a.example.com"), webhook("b.example.com")] },
    columns: ["Name", "Webhooks", "Age"],
    cells: [2],
    defaults(o) {
      const h = o.webhooks[0];
      assert.deepEqual(
        [h.failurePolicy, h.matchPolicy, h.timeoutSeconds, h.reinvocationPolicy],
        ["Fail", "Equivalent", 10, undefined],
      );
      assert.deepEqual([h.namespaceSelector, h.objectSelector], [{}, {}]);
      assert.equal(h.rules[0].scope, "*");
      assert.equal(h.clientConfig.service.port, 443);
    },
  },
  {
    kind: "MutatingWebhookConfiguration",
    plural: "mutatingwebhookconfigurations",
    body: {
      webhooks: [
        webhook("m.example.com", {
          matchConditions: [{
            name: "not-system",
            expression: "request.namespace != 'kube-system'",
          }],
        }),
      ],
    },
    columns: ["Name", "Webhooks", "Age"],
    cells: [1],
    defaults(o) {
      const h = o.webhooks[0];
      assert.deepEqual(
        [h.failurePolicy, h.matchPolicy, h.timeoutSeconds, h.reinvocationPolicy],
        ["Fail", "Equivalent", 10, "Never"],
      );
    },
  },
  {
    kind: "ValidatingAdmissionPolicy",
    plural: "validatingadmissionpolicies",
    body: { spec: POLICY_SPEC },
    columns: ["Name", "Validations", "ParamKind", "Age"],
    cells: [1, "<unset>"],
    defaults(o) {
      assert.equal(o.spec.failurePolicy, "Fail");
      const mc = o.spec.matchConstraints;
      assert.deepEqual(
        [mc.matchPolicy, mc.namespaceSelector, mc.objectSelector, mc.resourceRules[0].scope],
        ["Equivalent", {}, {}, "*"],
      );
    },
  },
  {
    kind: "ValidatingAdmissionPolicyBinding",
    plural: "validatingadmissionpolicybindings",
    body: {
      spec: {
        ...BINDING_SPEC,
        paramRef: { name: "p", namespace: "default", parameterNotFoundAction: "Deny" },
        matchResources: {},
      },
    },
    columns: ["Name", "PolicyName", "ParamRef", "Age"],
    cells: ["demo.example.com", "default/p"],
    defaults(o) {
      assert.equal(o.spec.matchResources.matchPolicy, "Equivalent");
    },
  },
];

async function withServer(fn: (t: TestServer) => Promise<void>) {
  // The policies' status controller would race the byte-for-byte comparisons of these tests.
  const t = await startTestServer(["--controllers=*,-validatingadmissionpolicy-status-controller"]);
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
  const path = `${GROUP}/${c.plural}`;
  const asJson = await (await t.fetch(`${path}/${name}`)).json();
  const res = await t.fetch(`${path}/${name}`, { headers: { accept: PB } });
  assert.equal(res.headers.get("content-type"), PB, c.kind);
  const asPb = decodeObject(new Uint8Array(await res.arrayBuffer()));
  assert.deepEqual(asPb, asJson, c.kind);
  const put = await t.fetch(`${path}/${name}`, {
    method: "PUT",
    headers: { "content-type": PB, accept: "application/json" },
    body: encodeObject(asPb),
  });
  assert.equal(put.status, 200, `${c.kind}: ${await put.clone().text()}`);
  assert.deepEqual(await put.json(), asJson, c.kind);
  const list = await t.fetch(path, { headers: { accept: PB } });
  const decodedList: Json = decodeObject(new Uint8Array(await list.arrayBuffer()));
  assert.equal(decodedList.kind, `${c.kind}List`);
  assert.equal(decodedList.items.length, 1);
  const table = await (await t.fetch(path, { headers: { accept: TABLE } })).json();
  assert.equal(table.kind, "Table");
  assert.deepEqual(table.columnDefinitions.map((d: Json) => d.name), c.columns, c.kind);
  const cells = table.rows[0].cells;
  assert.deepEqual(cells.slice(0, -1), [name, ...c.cells], c.kind);
}

async function checkPatches(t: TestServer, c: Case, name: string): Promise<void> {
  const path = `${GROUP}/${c.plural}/${name}`;
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
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: c.kind,
      metadata: { name, labels: { applied: "yes" } },
    }),
    "?fieldManager=tester",
  );
  assert.equal(applied.metadata.labels.applied, "yes");
  assert.ok(applied.metadata.managedFields.some((m: Json) => m.manager === "tester"), c.kind);
}

Deno.test("admissionregistration.k8s.io/v1 kinds serve every verb in JSON, Protobuf and Table", async () => {
  await withServer(async (t) => {
    for (const c of CASES) {
      const path = `${GROUP}/${c.plural}`;
      const name = "demo";
      const w = await watch(t, "watch=true", path);
      const created = await write(t, "POST", path, { ...c.body, metadata: { name } });
      c.defaults(created);
      assert.equal((await w.next())?.type, "ADDED", c.kind);
      await checkFormats(t, c, name);
      await checkPatches(t, c, name);
      const updated = await write(t, "PUT", `${path}/${name}`, {
        ...created,
        metadata: { ...created.metadata, resourceVersion: undefined, labels: { put: "yes" } },
      });
      assert.equal(updated.metadata.labels.put, "yes", c.kind);
      assert.equal((await w.next())?.type, "MODIFIED", c.kind);
      const del = await t.fetch(`${path}/${name}`, { method: "DELETE" });
      assert.equal(del.status, 200, c.kind);
      await del.body?.cancel();
      let ev = await w.next();
      while (ev && ev.type !== "DELETED") ev = await w.next();
      assert.equal(ev?.type, "DELETED", c.kind);
      await w.cancel();
    }
  });
});

Deno.test("validatingadmissionpolicies/status stores the status as written", async () => {
  await withServer(async (t) => {
    const path = `${GROUP}/validatingadmissionpolicies`;
    const created = await write(t, "POST", path, { metadata: { name: "p" }, spec: POLICY_SPEC });
    assert.deepEqual(created.status, {});
    const status = { observedGeneration: 1, typeChecking: {} };
    const res = await patch(t, `${path}/p/status`, "application/merge-patch+json", { status });
    assert.deepEqual(res.status, status);
    const viaMain = await patch(t, `${path}/p`, "application/merge-patch+json", {
      status: { observedGeneration: 7 },
    });
    assert.equal(viaMain.status.observedGeneration, 1);
  });
});

async function rejected(t: TestServer, plural: string, body: Json): Promise<string> {
  const res = await t.fetch(`${GROUP}/${plural}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  assert.equal(res.status, 422, JSON.stringify(json));
  return json.message;
}

Deno.test("webhook configurations reject invalid webhooks with Kubernetes' messages", async () => {
  await withServer(async (t) => {
    const vwc = "validatingwebhookconfigurations";
    const one = (hook: Json) => ({ metadata: { name: "bad" }, webhooks: [hook] });
    const prefix = 'ValidatingWebhookConfiguration.admissionregistration.k8s.io "bad" is invalid: ';
    assert.equal(
      await rejected(t, vwc, one(webhook("short"))),
      prefix +
        'webhooks[0].name: Invalid value: "short": should be a domain with at least three segments separated by dots',
    );
    assert.equal(
      await rejected(t, vwc, one(webhook("a.b.c", { sideEffects: undefined }))),
      prefix + "webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun",
    );
    assert.equal(
      await rejected(t, vwc, one(webhook("a.b.c", { sideEffects: "Some" }))),
      prefix +
        'webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
    );
    assert.equal(
      await rejected(t, vwc, one(webhook("a.b.c", { admissionReviewVersions: ["v2"] }))),
      prefix +
        'webhooks[0].admissionReviewVersions: Invalid value: ["v2"]: must include at least one of v1, v1beta1',
    );
    assert.equal(
      await rejected(t, vwc, one(webhook("a.b.c", { timeoutSeconds: 31 }))),
      prefix +
        "webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds",
    );
    assert.equal(
      await rejected(
        t,
        vwc,
        one(webhook("a.b.c", { clientConfig: { url: "http://example.com/x" } })),
      ),
      prefix +
        "webhooks[0].clientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]",
    );
    assert.equal(
      await rejected(t, vwc, one(webhook("a.b.c", { clientConfig: {} }))),
      prefix +
        "webhooks[0].clientConfig: Required value: exactly one of url or service is required",
    );
    assert.equal(
      await rejected(t, vwc, {
        metadata: { name: "bad" },
        webhooks: [webhook("a.b.c"), webhook("a.b.c")],
      }),
      prefix + 'webhooks[1].name: Duplicate value: "a.b.c"',
    );
    const badCel = await rejected(
      t,
      "mutatingwebhookconfigurations",
      one(webhook("a.b.c", { matchConditions: [{ name: "c", expression: "object.x ==" }] })),
    );
    assert.match(
      badCel,
      /webhooks\[0\]\.matchConditions\[0\]\.expression: Invalid value: "object\.x ==": compilation failed: ERROR: <input>:1:/,
    );
    assert.match(
      await rejected(
        t,
        vwc,
        one(webhook("a.b.c", { matchConditions: [{ name: "c", expression: "params.x" }] })),
      ),
      /matchConditions\[0\]\.expression: Invalid value: "params\.x": compilation failed/,
    );
    assert.match(
      await rejected(
        t,
        vwc,
        one(webhook("a.b.c", { matchConditions: [{ name: "c", expression: "'a'" }] })),
      ),
      /matchConditions\[0\]\.expression: Invalid value: "'a'": must evaluate to bool but got string/,
    );
  });
});

Deno.test("admission policies and bindings reject invalid specs with Kubernetes' messages", async () => {
  await withServer(async (t) => {
    const vap = "validatingadmissionpolicies";
    const prefix = 'ValidatingAdmissionPolicy.admissionregistration.k8s.io "bad" is invalid: ';
    const policy = (spec: Json) => ({
      metadata: { name: "bad" },
      spec: { ...POLICY_SPEC, ...spec },
    });
    const bad = await rejected(t, vap, policy({ validations: [{ expression: "object.x +" }] }));
    assert.match(
      bad,
      /^ValidatingAdmissionPolicy.admissionregistration.k8s.io "bad" is invalid: spec.validations\[0\].expression: Invalid value: "object.x \+": compilation failed: ERROR: <input>:1:/,
    );
    assert.equal(
      await rejected(t, vap, policy({ validations: [] })),
      prefix +
        "[spec.validations: Required value: validations or auditAnnotations must contain at least one item, " +
        "spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item]",
    );
    assert.equal(
      await rejected(t, vap, policy({ validations: [{ expression: "true", reason: "Teapot" }] })),
      prefix +
        'spec.validations[0].reason: Unsupported value: "Teapot": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge"',
    );
    assert.match(
      await rejected(t, vap, policy({ validations: [{ expression: "params.max > 1" }] })),
      /spec.validations\[0\].expression: Invalid value: "params.max > 1": compilation failed/,
    );
    await write(t, "POST", `${GROUP}/${vap}`, {
      metadata: { name: "ok" },
      spec: {
        ...POLICY_SPEC,
        paramKind: { apiVersion: "v1", kind: "ConfigMap" },
        variables: [{ name: "limit", expression: "int(params.data.limit)" }],
        validations: [{
          expression: "object.data.size() <= variables.limit",
          messageExpression: "'at most ' + string(variables.limit)",
        }],
        auditAnnotations: [{ key: "size", valueExpression: "string(object.data.size())" }],
      },
    });
    assert.equal(
      await rejected(t, vap, policy({ matchConstraints: undefined })),
      prefix + "spec.matchConstraints: Required value",
    );
    const vapb = "validatingadmissionpolicybindings";
    const bprefix =
      'ValidatingAdmissionPolicyBinding.admissionregistration.k8s.io "bad" is invalid: ';
    const binding = (spec: Json) => ({
      metadata: { name: "bad" },
      spec: { ...BINDING_SPEC, ...spec },
    });
    assert.equal(
      await rejected(t, vapb, binding({ validationActions: ["Deny", "Warn"] })),
      bprefix +
        'spec.validationActions: Invalid value: ["Deny","Warn"]: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
    );
    assert.equal(
      await rejected(t, vapb, binding({ validationActions: [] })),
      bprefix +
        "spec.validationActions: Required value: at least one validation action is required",
    );
    assert.equal(
      await rejected(t, vapb, binding({ policyName: "" })),
      bprefix + "spec.policyName: Required value",
    );
    assert.equal(
      await rejected(t, vapb, binding({ paramRef: { name: "p" } })),
      bprefix + "spec.paramRef.parameterNotFoundAction: Required value",
    );
    assert.equal(
      await rejected(t, vapb, binding({ validationActions: ["Deny", "Deny"] })),
      bprefix + 'spec.validationActions[1]: Duplicate value: "Deny"',
    );
  });
});

Deno.test({
  name: "kubectl gets the webhook configurations and admission policies as tables",
  ignore: skipWithoutKubectl("the kubectl admissionregistration tests"),
  async fn() {
    const s = await startTestServer();
    try {
      const k = kubectlFor(s);
      for (const c of CASES) {
        await write(s, "POST", `${GROUP}/${c.plural}`, { ...c.body, metadata: { name: "demo" } });
      }
      const out = ok(
        await kubectl(k, [
          "get",
          "validatingwebhookconfigurations,mutatingwebhookconfigurations,validatingadmissionpolicies",
        ]),
      );
      assert.match(
        out,
        /NAME\s+WEBHOOKS\s+AGE\nvalidatingwebhookconfiguration.admissionregistration.k8s.io\/demo\s+2\s+\S+\n/,
      );
      assert.match(
        out,
        /mutatingwebhookconfiguration.admissionregistration.k8s.io\/demo\s+1\s+\S+\n/,
      );
      assert.match(out, /NAME\s+VALIDATIONS\s+PARAMKIND\s+AGE\n/);
      assert.match(
        out,
        /validatingadmissionpolicy.admissionregistration.k8s.io\/demo\s+1\s+<unset>\s+\S+/,
      );
      const bindings = ok(await kubectl(k, ["get", "validatingadmissionpolicybindings"]));
      assert.match(
        bindings,
        /^NAME\s+POLICYNAME\s+PARAMREF\s+AGE\ndemo\s+demo.example.com\s+default\/p\s+\S+\n/,
      );
      const yaml = ok(await kubectl(k, ["get", "validatingadmissionpolicy", "demo", "-o", "yaml"]));
      assert.match(yaml, /failurePolicy: Fail/);
      const explained = ok(
        await kubectl(k, ["explain", "validatingwebhookconfiguration.webhooks"]),
      );
      assert.match(explained, /sideEffects/);
    } finally {
      await s.close();
    }
  },
});

Deno.test("webhooks and match conditions merge by name under strategic merge and apply", async () => {
  await withServer(async (t) => {
    const path = `${GROUP}/validatingwebhookconfigurations`;
    await write(t, "POST", path, {
      metadata: { name: "merge" },
      webhooks: [webhook("a.example.com"), webhook("b.example.com")],
    });
    const smp = await patch(t, `${path}/merge`, "application/strategic-merge-patch+json", {
      webhooks: [{ name: "b.example.com", timeoutSeconds: 5 }],
    });
    assert.deepEqual(smp.webhooks.map((h: Json) => [h.name, h.timeoutSeconds]), [
      ["a.example.com", 10],
      ["b.example.com", 5],
    ]);
    const applied = await patch(
      t,
      `${path}/merge`,
      "application/apply-patch+yaml",
      JSON.stringify({
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "ValidatingWebhookConfiguration",
        metadata: { name: "merge" },
        webhooks: [webhook("c.example.com", { timeoutSeconds: 3 })],
      }),
      "?fieldManager=applier",
    );
    assert.deepEqual(applied.webhooks.map((h: Json) => h.name), [
      "a.example.com",
      "b.example.com",
      "c.example.com",
    ]);
    assert.equal(applied.webhooks[2].timeoutSeconds, 3);
    const bad = await t.fetch(`${path}/merge`, {
      method: "PATCH",
      headers: { "content-type": "application/strategic-merge-patch+json" },
      body: JSON.stringify({ webhooks: [{ name: "a.example.com", timeoutSeconds: 0 }] }),
    });
    assert.equal(bad.status, 422);
    assert.match((await bad.json()).message, /webhooks\[0\]\.timeoutSeconds: Invalid value: 0/);
  });
});
