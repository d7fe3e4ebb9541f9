/**
 * The alpha and beta kinds' validation errors in kube's words, and how discovery shows the
 * enabled versions (GA stays preferred; resource.k8s.io prefers v1beta1).
 */
import assert from "node:assert/strict";
import { createCA, issueCertificate } from "../../shared/pki/issue_certificate.ts";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import type { Json } from "./_watch_helpers.ts";
import { write } from "./_watch_helpers.ts";

const ALL_ON = "--runtime-config=api/alpha=true,api/beta=true";

async function rejected(t: TestServer, method: string, path: string, body: Json): Promise<string> {
  const res = await t.fetch(path, {
    method,
    headers: {
      "content-type": method === "PATCH" ? "application/merge-patch+json" : "application/json",
    },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  assert.equal(res.status, 422, JSON.stringify(json));
  return json.message;
}

async function withServer(fn: (t: TestServer) => Promise<void>): Promise<void> {
  const t = await startTestServer([ALL_ON]);
  try {
    await fn(t);
  } finally {
    await t.close();
  }
}

Deno.test("LeaseCandidate and VolumeAttributesClass validation follow kube", async () => {
  await withServer(async (t) => {
    const lc = "/apis/coordination.k8s.io/v1alpha2/namespaces/default/leasecandidates";
    assert.equal(
      await rejected(t, "POST", lc, { metadata: { name: "c" }, spec: {} }),
      'LeaseCandidate.coordination.k8s.io "c" is invalid: [spec.leaseName: Required value, ' +
        "spec.binaryVersion: Required value, spec.strategy: Required value]",
    );
    assert.match(
      await rejected(t, "POST", lc, {
        metadata: { name: "d" },
        spec: {
          leaseName: "l",
          binaryVersion: "1.31.0",
          emulationVersion: "1.32.0",
          strategy: "OldestEmulationVersion",
        },
      }),
      /spec\.binaryVersion: Invalid value: "1\.31\.0": must be greater than or equal to `emulationVersion`/,
    );
    const vac = "/apis/storage.k8s.io/v1beta1/volumeattributesclasses";
    assert.equal(
      await rejected(t, "POST", vac, { metadata: { name: "v" } }),
      'VolumeAttributesClass.storage.k8s.io "v" is invalid: [driverName: Required value, ' +
        "parameters: Required value: must contain at least one key/value pair]",
    );
    await write(t, "POST", vac, {
      metadata: { name: "keep" },
      driverName: "csi.example.com",
      parameters: { a: "1" },
    });
    assert.equal(
      await rejected(t, "PATCH", `${vac}/keep`, { parameters: { a: "2" } }),
      'VolumeAttributesClass.storage.k8s.io "keep" is invalid: parameters: Forbidden: ' +
        "updates to parameters are forbidden.",
    );
    assert.match(
      await rejected(
        t,
        "PATCH",
        "/apis/storage.k8s.io/v1alpha1/volumeattributesclasses/keep",
        { driverName: "other.example.com" },
      ),
      /driverName: Forbidden: updates to driverName are forbidden\./,
    );
  });
});

Deno.test("ClusterTrustBundle validation follows kube", async () => {
  const ca = await createCA("anchor");
  const leaf = await issueCertificate({ ca, commonName: "leaf", usages: "client" });
  await withServer(async (t) => {
    const ctb = "/apis/certificates.k8s.io/v1alpha1/clustertrustbundles";
    assert.equal(
      await rejected(t, "POST", ctb, { metadata: { name: "e" }, spec: { trustBundle: "" } }),
      'ClusterTrustBundle.certificates.k8s.io "e" is invalid: spec.trustBundle: Invalid value: ' +
        '"<value omitted>": at least one trust anchor must be provided',
    );
    assert.match(
      await rejected(t, "POST", ctb, {
        metadata: { name: "leaf" },
        spec: { trustBundle: leaf.certPem },
      }),
      /entry 0 does not have the CA bit set/,
    );
    assert.match(
      await rejected(t, "POST", ctb, {
        metadata: { name: "dup" },
        spec: { trustBundle: ca.certPem + ca.certPem },
      }),
      /duplicate trust anchor \(indices \[0 1\]\)/,
    );
    assert.match(
      await rejected(t, "POST", ctb, {
        metadata: { name: "wrong" },
        spec: { signerName: "example.com/signer", trustBundle: ca.certPem },
      }),
      /metadata\.name: Invalid value: "wrong": ClusterTrustBundle for signerName example\.com\/signer must be named with prefix example\.com:signer:/,
    );
    const made = await write(t, "POST", ctb, {
      metadata: { name: "example.com:signer:one" },
      spec: { signerName: "example.com/signer", trustBundle: ca.certPem },
    });
    assert.equal(made.spec.signerName, "example.com/signer");
    assert.match(
      await rejected(t, "PATCH", `${ctb}/example.com:signer:one`, {
        spec: { signerName: "example.com/other" },
      }),
      /spec\.signerName: Invalid value: "example\.com\/other": changing signerName is forbidden/,
    );
  });
});

Deno.test("resource.k8s.io validation follows kube", async () => {
  await withServer(async (t) => {
    const rc = "/apis/resource.k8s.io/v1beta1/namespaces/default/resourceclaims";
    assert.match(
      await rejected(t, "POST", rc, {
        metadata: { name: "c" },
        spec: {
          devices: {
            requests: [{ name: "r", deviceClassName: "gpu", allocationMode: "Some" }],
            constraints: [{ requests: ["nope"], matchAttribute: "example.com/model" }],
          },
        },
      }),
      /spec\.devices\.requests\[0\]\.allocationMode: Unsupported value: "Some": supported values: "All", "ExactCount".*spec\.devices\.constraints\[0\]\.requests\[0\]: Invalid value: "nope": must be the name of a request in the claim/,
    );
    assert.match(
      await rejected(t, "POST", rc, {
        metadata: { name: "c2" },
        spec: { devices: { requests: [{ name: "r", deviceClassName: "gpu", count: -1 }] } },
      }),
      /spec\.devices\.requests\[0\]\.count: Invalid value: -1: must be greater than zero/,
    );
    await write(t, "POST", rc, {
      metadata: { name: "keep" },
      spec: { devices: { requests: [{ name: "r", deviceClassName: "gpu" }] } },
    });
    assert.match(
      await rejected(t, "PATCH", `${rc}/keep`, {
        spec: { devices: { requests: [{ name: "r", deviceClassName: "other" }] } },
      }),
      /ResourceClaim\.resource\.k8s\.io "keep" is invalid: spec: Invalid value: .*: field is immutable/,
    );
    const rs = "/apis/resource.k8s.io/v1alpha3/resourceslices";
    assert.equal(
      await rejected(t, "POST", rs, {
        metadata: { name: "s" },
        spec: {
          driver: "gpu.example.com",
          pool: { name: "p", generation: 0, resourceSliceCount: 1 },
        },
      }),
      'ResourceSlice.resource.k8s.io "s" is invalid: spec: Required value: exactly one of ' +
        "`nodeName`, `nodeSelector`, or `allNodes` is required",
    );
    assert.match(
      await rejected(t, "POST", rs, {
        metadata: { name: "s2" },
        spec: {
          driver: "gpu.example.com",
          pool: { name: "p", generation: 0, resourceSliceCount: 0 },
          nodeName: "n",
          allNodes: true,
        },
      }),
      /spec\.pool\.resourceSliceCount: Invalid value: 0: must be greater than zero.*spec: Invalid value: "\{`nodeName`, `allNodes`\}": exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required, but multiple fields are set/,
    );
  });
});

Deno.test("admission policy alpha/beta validation follows kube", async () => {
  await withServer(async (t) => {
    const ar = "/apis/admissionregistration.k8s.io";
    assert.equal(
      await rejected(t, "POST", `${ar}/v1beta1/validatingadmissionpolicies`, {
        metadata: { name: "p" },
        spec: { validations: [{ expression: "true" }] },
      }),
      'ValidatingAdmissionPolicy.admissionregistration.k8s.io "p" is invalid: ' +
        "spec.matchConstraints: Required value",
    );
    assert.equal(
      await rejected(t, "POST", `${ar}/v1alpha1/mutatingadmissionpolicies`, {
        metadata: { name: "m" },
        spec: {
          matchConstraints: {
            resourceRules: [{
              apiGroups: [""],
              apiVersions: ["v1"],
              operations: ["DELETE"],
              resources: ["pods"],
            }],
          },
        },
      }),
      'MutatingAdmissionPolicy.admissionregistration.k8s.io "m" is invalid: [' +
        'spec.matchConstraints.resourceRules[0].operations[0]: Unsupported value: "DELETE": ' +
        'supported values: "CREATE", "UPDATE", spec.mutations: Required value: mutations must ' +
        "contain at least one item, spec.reinvocationPolicy: Required value]",
    );
    assert.match(
      await rejected(t, "POST", `${ar}/v1alpha1/mutatingadmissionpolicies`, {
        metadata: { name: "m2" },
        spec: {
          matchConstraints: {
            resourceRules: [{
              apiGroups: [""],
              apiVersions: ["v1"],
              operations: ["CREATE"],
              resources: ["pods"],
            }],
          },
          mutations: [{ patchType: "JSONPatch", applyConfiguration: { expression: "x" } }],
          reinvocationPolicy: "Never",
        },
      }),
      /spec\.mutations\[0\]\.jsonPatch: Required value: must be specified when patchType is JSONPatch, spec\.mutations\[0\]\.applyConfiguration: Invalid value: "\{applyConfiguration\}": must not be specified when patchType is JSONPatch/,
    );
  });
});

Deno.test("discovery lists enabled alpha and beta versions after the preferred one", async () => {
  await withServer(async (t) => {
    const groups = await (await t.fetch("/apis")).json();
    const byName = Object.fromEntries(groups.groups.map((g: Json) => [g.name, g]));
    const versions = (g: string) => byName[g].versions.map((v: Json) => v.version);
    assert.deepEqual(versions("admissionregistration.k8s.io"), ["v1", "v1beta1", "v1alpha1"]);
    assert.deepEqual(versions("storage.k8s.io"), ["v1", "v1beta1", "v1alpha1"]);
    assert.deepEqual(versions("coordination.k8s.io"), ["v1", "v1alpha2"]);
    assert.deepEqual(versions("certificates.k8s.io"), ["v1", "v1alpha1"]);
    assert.deepEqual(versions("resource.k8s.io"), ["v1beta1", "v1alpha3"]);
    assert.equal(byName["resource.k8s.io"].preferredVersion.version, "v1beta1");
    const rs = await (await t.fetch("/apis/resource.k8s.io/v1beta1")).json();
    assert.deepEqual(
      rs.resources.map((r: Json) => r.name).sort(),
      [
        "deviceclasses",
        "resourceclaims",
        "resourceclaims/status",
        "resourceclaimtemplates",
        "resourceslices",
      ],
    );
    const v3 = await (await t.fetch("/openapi/v3")).json();
    for (const p of ["apis/resource.k8s.io/v1alpha3", "apis/storage.k8s.io/v1beta1"]) {
      assert.ok(Object.keys(v3.paths).includes(p), p);
    }
    const doc = await (await t.fetch("/openapi/v3/apis/resource.k8s.io/v1alpha3")).json();
    const schemas = Object.keys(doc.components.schemas);
    assert.ok(schemas.includes("io.k8s.api.resource.v1alpha3.ResourceSlice"), schemas.join());
    const v2 = await (await t.fetch("/openapi/v2")).json();
    for (
      const d of [
        "io.k8s.api.resource.v1beta1.ResourceClaim",
        "io.k8s.api.admissionregistration.v1alpha1.MutatingAdmissionPolicy",
        "io.k8s.api.coordination.v1alpha2.LeaseCandidate",
        "io.k8s.api.certificates.v1alpha1.ClusterTrustBundle",
        "io.k8s.api.storage.v1alpha1.VolumeAttributesClass",
      ]
    ) assert.ok(v2.definitions[d], d);
    assert.ok(v2.paths["/apis/resource.k8s.io/v1alpha3/namespaces/{namespace}/resourceclaims"]);
  });
});

Deno.test("the versions kube 1.32 deprecates warn in kube's words; the others do not", async () => {
  await withServer(async (t) => {
    const cases: [string, string | null][] = [
      [
        "/apis/admissionregistration.k8s.io/v1beta1/validatingadmissionpolicies",
        "admissionregistration.k8s.io/v1beta1 ValidatingAdmissionPolicy is deprecated in v1.31+, unavailable in v1.34+",
      ],
      [
        "/apis/admissionregistration.k8s.io/v1beta1/validatingadmissionpolicybindings",
        "admissionregistration.k8s.io/v1beta1 ValidatingAdmissionPolicyBinding is deprecated in v1.31+, unavailable in v1.34+",
      ],
      [
        "/apis/storage.k8s.io/v1alpha1/volumeattributesclasses",
        "storage.k8s.io/v1alpha1 VolumeAttributesClass is deprecated in v1.32+, unavailable in v1.35+",
      ],
      ["/apis/storage.k8s.io/v1beta1/volumeattributesclasses", null],
      ["/apis/resource.k8s.io/v1alpha3/resourceslices", null],
      ["/apis/admissionregistration.k8s.io/v1alpha1/mutatingadmissionpolicies", null],
      ["/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies", null],
    ];
    for (const [path, warning] of cases) {
      const res = await t.fetch(path);
      await res.body?.cancel();
      assert.equal(res.status, 200, path);
      assert.equal(res.headers.get("warning"), warning && `299 - "${warning}"`, path);
    }
  });
});

Deno.test("resourceclaims/status follows kube's status rules at both versions", async () => {
  await withServer(async (t) => {
    for (const v of ["v1beta1", "v1alpha3"]) {
      const rc = `/apis/resource.k8s.io/${v}/namespaces/default/resourceclaims`;
      const name = `claim-${v}`;
      const claim = await write(t, "POST", rc, {
        metadata: { name },
        spec: { devices: { requests: [{ name: "gpu", deviceClassName: "gpu" }] } },
      });
      const consumer = { resource: "pods", name: "p", uid: "u1" };
      const putStatus = (status: Json) =>
        t.fetch(`${rc}/${name}/status`, {
          method: "PUT",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ ...claim, status }),
        });
      let res = await putStatus({ reservedFor: [consumer] });
      let body = await res.json();
      assert.equal(res.status, 422, v);
      assert.match(
        body.message,
        /status\.reservedFor: Forbidden: may not be specified when `allocated` is not set/,
      );
      const result = { request: "nope", driver: "gpu.example.com", pool: "p", device: "d" };
      res = await putStatus({ allocation: { devices: { results: [result] } } });
      body = await res.json();
      assert.equal(res.status, 422, v);
      assert.match(
        body.message,
        /status\.allocation\.devices\.results\[0\]\.request: Invalid value: "nope": must be the name of a request in the claim/,
      );
      const allocation = { devices: { results: [{ ...result, request: "gpu" }] } };
      res = await putStatus({ allocation, reservedFor: [consumer, consumer] });
      body = await res.json();
      assert.match(body.message, /status\.reservedFor\[1\]\.uid: Duplicate value: "u1"/);
      res = await putStatus({ allocation, reservedFor: [consumer] });
      const allocated = await res.json();
      assert.equal(res.status, 200, JSON.stringify(allocated));
      assert.equal(allocated.apiVersion, `resource.k8s.io/${v}`);
      const table = await (await t.fetch(rc, {
        headers: { accept: "application/json;as=Table;v=v1;g=meta.k8s.io" },
      })).json();
      const row = table.rows.find((r: Json) => r.cells[0] === name);
      assert.equal(row.cells[1], "allocated,reserved");
      const moved = { devices: { results: [{ ...result, request: "gpu", device: "other" }] } };
      res = await t.fetch(`${rc}/${name}/status`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ ...allocated, status: { allocation: moved } }),
      });
      body = await res.json();
      assert.equal(res.status, 422, v);
      assert.match(body.message, /status\.allocation: Invalid value: .*: field is immutable/);
    }
  });
});
