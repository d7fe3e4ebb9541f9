/**
 * End-to-end over HTTPS for the alpha and beta versions of kube 1.32 that `--runtime-config`
 * enables: every verb in JSON, Protobuf and Table, watch, and validation errors with kube's
 * messages, per kind. Conversion across versions is in alpha_beta_conversion_test.ts.
 */
import assert from "node:assert/strict";
import { decodeObject, encodeObject } from "../../shared/codec/protobuf/mod.ts";
import { createCA } from "../../shared/pki/issue_certificate.ts";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import { type Json, watch, write } from "./_watch_helpers.ts";

const PB = "application/vnd.kubernetes.protobuf";
const TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io";
const ALL_ON = "--runtime-config=api/alpha=true,api/beta=true";
const AR = "admissionregistration.k8s.io";

/** One kind at one version, as the tests exercise it. */
export interface KindCase {
  apiVersion: string;
  kind: string;
  /** The collection path. */
  path: string;
  /** The body (without apiVersion, kind and name). */
  body: Json;
  columns: string[];
  /** The created object's row after the name, as many cells as given. */
  cells: unknown[];
  /** Fields as they read after create (defaults). */
  defaults?: Json;
}

const POLICY_SPEC = {
  matchConstraints: {
    resourceRules: [{
      apiGroups: [""],
      apiVersions: ["v1"],
      operations: ["CREATE"],
      resources: ["configmaps"],
    }],
  },
  validations: [{ expression: "object.metadata.name != 'forbidden'" }],
};
const POLICY_DEFAULTS = {
  spec: {
    ...POLICY_SPEC,
    failurePolicy: "Fail",
    matchConstraints: {
      resourceRules: [{ ...POLICY_SPEC.matchConstraints.resourceRules[0], scope: "*" }],
      matchPolicy: "Equivalent",
      namespaceSelector: {},
      objectSelector: {},
    },
  },
};

function policyCases(version: string): KindCase[] {
  const base = `/apis/${AR}/${version}`;
  return [{
    apiVersion: `${AR}/${version}`,
    kind: "ValidatingAdmissionPolicy",
    path: `${base}/validatingadmissionpolicies`,
    body: { spec: POLICY_SPEC },
    columns: ["Name", "Validations", "ParamKind", "Age"],
    cells: [1, "<unset>"],
    defaults: POLICY_DEFAULTS,
  }, {
    apiVersion: `${AR}/${version}`,
    kind: "ValidatingAdmissionPolicyBinding",
    path: `${base}/validatingadmissionpolicybindings`,
    body: { spec: { policyName: "p", validationActions: ["Deny"] } },
    columns: ["Name", "PolicyName", "ParamRef", "Age"],
    cells: ["p", "<unset>"],
  }];
}

const CLAIM_DEVICES = {
  requests: [{
    name: "gpu",
    deviceClassName: "gpu.example.com",
    selectors: [{ cel: { expression: "device.driver == 'gpu.example.com'" } }],
  }],
};

function resourceCases(version: string): KindCase[] {
  const base = `/apis/resource.k8s.io/${version}`;
  const apiVersion = `resource.k8s.io/${version}`;
  const capacity = version === "v1beta1" ? { memory: { value: "8Gi" } } : { memory: "8Gi" };
  const slice = {
    driver: "gpu.example.com",
    pool: { name: "node-1", generation: 1, resourceSliceCount: 1 },
    nodeName: "node-1",
    devices: [{ name: "gpu-0", basic: { attributes: { model: { string: "a100" } }, capacity } }],
  };
  return [{
    apiVersion,
    kind: "DeviceClass",
    path: `${base}/deviceclasses`,
    body: { spec: { selectors: CLAIM_DEVICES.requests[0].selectors } },
    columns: ["Name", "Age"],
    cells: [],
  }, {
    apiVersion,
    kind: "ResourceClaim",
    path: `${base}/namespaces/default/resourceclaims`,
    body: { spec: { devices: CLAIM_DEVICES } },
    columns: ["Name", "State", "Age"],
    cells: ["pending"],
    defaults: {
      spec: {
        devices: {
          requests: [{ ...CLAIM_DEVICES.requests[0], allocationMode: "ExactCount", count: 1 }],
        },
      },
      status: {},
    },
  }, {
    apiVersion,
    kind: "ResourceClaimTemplate",
    path: `${base}/namespaces/default/resourceclaimtemplates`,
    body: { spec: { spec: { devices: CLAIM_DEVICES } } },
    columns: ["Name", "Age"],
    cells: [],
  }, {
    apiVersion,
    kind: "ResourceSlice",
    path: `${base}/resourceslices`,
    body: { spec: slice },
    columns: ["Name", "Node", "Driver", "Pool", "Age"],
    cells: ["node-1", "gpu.example.com", "node-1"],
    defaults: { spec: slice },
  }];
}

const MUTATING_CASES: KindCase[] = [{
  apiVersion: `${AR}/v1alpha1`,
  kind: "MutatingAdmissionPolicy",
  path: `/apis/${AR}/v1alpha1/mutatingadmissionpolicies`,
  body: {
    spec: {
      matchConstraints: POLICY_SPEC.matchConstraints,
      mutations: [{
        patchType: "ApplyConfiguration",
        applyConfiguration: { expression: "Object{metadata: Object.metadata{labels: {'a': 'b'}}}" },
      }],
      reinvocationPolicy: "Never",
    },
  },
  columns: ["Name", "Mutations", "ParamKind", "Age"],
  cells: [1, "<unset>"],
  defaults: {
    spec: {
      failurePolicy: "Fail",
      matchConstraints: POLICY_DEFAULTS.spec.matchConstraints,
      mutations: [{
        patchType: "ApplyConfiguration",
        applyConfiguration: { expression: "Object{metadata: Object.metadata{labels: {'a': 'b'}}}" },
      }],
      reinvocationPolicy: "Never",
    },
  },
}, {
  apiVersion: `${AR}/v1alpha1`,
  kind: "MutatingAdmissionPolicyBinding",
  path: `/apis/${AR}/v1alpha1/mutatingadmissionpolicybindings`,
  body: { spec: { policyName: "m", paramRef: { name: "p" } } },
  columns: ["Name", "PolicyName", "ParamRef", "Age"],
  cells: ["m", "*/p"],
  defaults: { spec: { policyName: "m", paramRef: { name: "p", parameterNotFoundAction: "Deny" } } },
}];

/** The cases of every kind this file covers; `caPem` is a CA certificate. */
export function kindCases(caPem: string): KindCase[] {
  return [
    ...policyCases("v1beta1"),
    ...MUTATING_CASES,
    ...resourceCases("v1beta1"),
    ...resourceCases("v1alpha3"),
    {
      apiVersion: "coordination.k8s.io/v1alpha2",
      kind: "LeaseCandidate",
      path: "/apis/coordination.k8s.io/v1alpha2/namespaces/default/leasecandidates",
      body: {
        spec: {
          leaseName: "kube-scheduler",
          binaryVersion: "1.32.0",
          emulationVersion: "1.31.0",
          strategy: "OldestEmulationVersion",
        },
      },
      columns: ["Name", "LeaseName", "BinaryVersion", "EmulationVersion", "Age"],
      cells: ["kube-scheduler", "1.32.0", "1.31.0"],
    },
    ...["v1beta1", "v1alpha1"].map((v) => ({
      apiVersion: `storage.k8s.io/${v}`,
      kind: "VolumeAttributesClass",
      path: `/apis/storage.k8s.io/${v}/volumeattributesclasses`,
      body: { driverName: "csi.example.com", parameters: { iops: "3000" } },
      columns: ["Name", "DriverName", "Age"],
      cells: ["csi.example.com"],
    })),
    {
      apiVersion: "certificates.k8s.io/v1alpha1",
      kind: "ClusterTrustBundle",
      path: "/apis/certificates.k8s.io/v1alpha1/clustertrustbundles",
      body: { spec: { trustBundle: caPem } },
      columns: ["Name", "SignerName"],
      cells: ["<none>"],
    },
  ];
}

async function send(t: TestServer, method: string, path: string, type: string, body: unknown) {
  const res = await t.fetch(path, {
    method,
    headers: { "content-type": type },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const json = await res.json();
  assert.ok(res.status < 300, `${method} ${path} (${type}): ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function checkFormats(t: TestServer, c: KindCase, name: string): Promise<void> {
  const asJson = await (await t.fetch(`${c.path}/${name}`)).json();
  assert.equal(asJson.apiVersion, c.apiVersion);
  const res = await t.fetch(`${c.path}/${name}`, { headers: { accept: PB } });
  assert.equal(res.headers.get("content-type"), PB, c.kind);
  const asPb = decodeObject(new Uint8Array(await res.arrayBuffer()));
  assert.deepEqual(asPb, asJson, `${c.apiVersion} ${c.kind}`);
  const put = await t.fetch(`${c.path}/${name}`, {
    method: "PUT",
    headers: { "content-type": PB, accept: "application/json" },
    body: encodeObject(asPb),
  });
  assert.equal(put.status, 200, `${c.kind}: ${await put.clone().text()}`);
  assert.deepEqual(await put.json(), asJson, c.kind);
  const table = await (await t.fetch(c.path, { headers: { accept: TABLE } })).json();
  assert.deepEqual(table.columnDefinitions.map((d: Json) => d.name), c.columns, c.kind);
  const row = table.rows.find((r: Json) => r.cells[0] === name).cells;
  assert.deepEqual(row.slice(0, c.cells.length + 1), [name, ...c.cells], c.kind);
}

async function checkWrites(t: TestServer, c: KindCase, name: string): Promise<void> {
  const path = `${c.path}/${name}`;
  const merged = await send(t, "PATCH", path, "application/merge-patch+json", {
    metadata: { labels: { merge: "yes" } },
  });
  assert.equal(merged.metadata.labels.merge, "yes");
  const smp = await send(t, "PATCH", path, "application/strategic-merge-patch+json", {
    metadata: { labels: { smp: "yes" } },
  });
  assert.equal(smp.metadata.labels.smp, "yes");
  const applied = await send(
    t,
    "PATCH",
    `${path}?fieldManager=tester`,
    "application/apply-patch+yaml",
    { apiVersion: c.apiVersion, kind: c.kind, metadata: { name, labels: { applied: "yes" } } },
  );
  assert.equal(applied.metadata.labels.applied, "yes");
  assert.equal(applied.apiVersion, c.apiVersion);
  const updated = await send(t, "PUT", path, "application/json", {
    ...applied,
    metadata: { ...applied.metadata, annotations: { put: "yes" } },
  });
  assert.equal(updated.metadata.annotations.put, "yes");
}

async function exercise(t: TestServer, c: KindCase): Promise<void> {
  const name = `${c.kind.toLowerCase()}-${c.apiVersion.split("/")[1]}`;
  const w = await watch(t, "watch=true", c.path);
  const created = await write(t, "POST", c.path, {
    apiVersion: c.apiVersion,
    kind: c.kind,
    ...c.body,
    metadata: { ...c.body.metadata, name },
  });
  assert.equal(created.apiVersion, c.apiVersion);
  for (const [k, v] of Object.entries(c.defaults ?? {})) {
    assert.deepEqual(created[k], v, `${c.kind} ${k}`);
  }
  const added = await w.next();
  assert.equal(added?.type, "ADDED", c.kind);
  assert.equal(added?.object.apiVersion, c.apiVersion, c.kind);
  await checkFormats(t, c, name);
  await checkWrites(t, c, name);
  assert.equal((await w.next())?.type, "MODIFIED", c.kind);
  const list = await (await t.fetch(c.path)).json();
  assert.equal(list.kind, `${c.kind}List`);
  assert.equal(list.apiVersion, c.apiVersion);
  assert.ok(list.items.some((o: Json) => o.metadata.name === name), c.kind);
  const del = await t.fetch(`${c.path}/${name}`, { method: "DELETE" });
  assert.equal(del.status, 200, c.kind);
  await del.body?.cancel();
  let ev = await w.next();
  while (ev && ev.type !== "DELETED") ev = await w.next();
  assert.equal(ev?.type, "DELETED", c.kind);
  await w.cancel();
}

Deno.test("alpha and beta kinds serve every verb in JSON, Protobuf and Table when enabled", async () => {
  const ca = await createCA("bundle-ca");
  const t = await startTestServer([ALL_ON]);
  try {
    for (const c of kindCases(ca.certPem)) await exercise(t, c);
  } finally {
    await t.close();
  }
});

Deno.test("alpha and beta versions are off by default: 404 and absent from discovery", async () => {
  const t = await startTestServer();
  try {
    for (const c of kindCases("")) {
      const res = await t.fetch(c.path);
      assert.equal(res.status, 404, c.path);
      await res.body?.cancel();
    }
    const groups = await (await t.fetch("/apis")).json();
    const versions = groups.groups.flatMap((g: Json) =>
      g.versions.map((v: Json) => v.groupVersion)
    );
    for (const gv of [`${AR}/v1beta1`, "storage.k8s.io/v1alpha1", "resource.k8s.io/v1beta1"]) {
      assert.ok(!versions.includes(gv), gv);
    }
  } finally {
    await t.close();
  }
});
