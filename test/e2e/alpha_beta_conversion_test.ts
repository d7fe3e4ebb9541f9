/**
 * Conversion across the versions of one kind end to end: objects written at one version read,
 * list, update and watch at the others without loss (kube 1.32's storage versions: v1 for the
 * validating admission policies, v1beta1 for resource.k8s.io and VolumeAttributesClass), and
 * a disabled storage version leaves its objects readable through the versions still served.
 */
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import { type Json, watch, write } from "./_watch_helpers.ts";

const AR = "/apis/admissionregistration.k8s.io";
const RES = "/apis/resource.k8s.io";
const ST = "/apis/storage.k8s.io";
const ALL_ON = "--runtime-config=api/alpha=true,api/beta=true";

const POLICY = {
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "ValidatingAdmissionPolicy",
  metadata: { name: "p1", labels: { a: "b" } },
  spec: {
    paramKind: { apiVersion: "v1", kind: "ConfigMap" },
    matchConstraints: {
      resourceRules: [{
        apiGroups: [""],
        apiVersions: ["v1"],
        operations: ["CREATE", "UPDATE"],
        resources: ["configmaps"],
      }],
    },
    variables: [{ name: "n", expression: "object.metadata.name" }],
    validations: [{ expression: "variables.n != 'x'", message: "no x", reason: "Forbidden" }],
    auditAnnotations: [{ key: "k", valueExpression: "'v'" }],
  },
};

function slice(name: string, apiVersion: string, capacity: Json): Json {
  return {
    apiVersion,
    kind: "ResourceSlice",
    metadata: { name },
    spec: {
      driver: "gpu.example.com",
      pool: { name: "pool", generation: 0, resourceSliceCount: 1 },
      allNodes: true,
      devices: [{ name: "d0", basic: { capacity } }],
    },
  };
}

/** `obj` without what the server sets (and a controller's status), at no apiVersion. */
function essence(obj: Json): Json {
  const { apiVersion: _a, status: _s, metadata, ...rest } = obj;
  const { resourceVersion: _r, managedFields: _m, generation: _g, ...meta } = metadata;
  return { ...rest, metadata: meta };
}

async function get(t: TestServer, path: string): Promise<Json> {
  const res = await t.fetch(path);
  const json = await res.json();
  assert.equal(res.status, 200, `${path}: ${JSON.stringify(json)}`);
  return json;
}

async function status(t: TestServer, path: string): Promise<number> {
  const res = await t.fetch(path);
  await res.body?.cancel();
  return res.status;
}

Deno.test("a ValidatingAdmissionPolicy written at v1 reads, lists and watches the same at v1beta1", async () => {
  const t = await startTestServer([ALL_ON]);
  try {
    const w = await watch(t, "watch=true", `${AR}/v1beta1/validatingadmissionpolicies`);
    const created = await write(t, "POST", `${AR}/v1/validatingadmissionpolicies`, POLICY);
    const ev = await w.next();
    assert.equal(ev?.object.apiVersion, "admissionregistration.k8s.io/v1beta1");
    await w.cancel();
    for (const v of ["v1beta1"]) {
      const got = await get(t, `${AR}/${v}/validatingadmissionpolicies/p1`);
      assert.equal(got.apiVersion, `admissionregistration.k8s.io/${v}`);
      assert.deepEqual(essence(got), essence(created), v);
      const list = await get(t, `${AR}/${v}/validatingadmissionpolicies`);
      assert.equal(list.apiVersion, `admissionregistration.k8s.io/${v}`);
      assert.deepEqual(essence(list.items[0]), essence(created), v);
    }
    // An update through v1beta1 is what v1 reads.
    const old = await get(t, `${AR}/v1beta1/validatingadmissionpolicies/p1`);
    old.spec.validations[0].message = "still no x";
    await write(t, "PUT", `${AR}/v1beta1/validatingadmissionpolicies/p1`, old);
    const v1 = await get(t, `${AR}/v1/validatingadmissionpolicies/p1`);
    assert.equal(v1.spec.validations[0].message, "still no x");
    assert.equal(v1.apiVersion, "admissionregistration.k8s.io/v1");
  } finally {
    await t.close();
  }
});

Deno.test("a v1beta1 binding needs parameterNotFoundAction as v1 does; v1alpha1 policies are gone", async () => {
  const t = await startTestServer([ALL_ON]);
  try {
    const res = await t.fetch(`${AR}/v1beta1/validatingadmissionpolicybindings`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        metadata: { name: "b2" },
        spec: { policyName: "p1", paramRef: { name: "cfg" }, validationActions: ["Deny"] },
      }),
    });
    const body = await res.json();
    assert.equal(res.status, 422);
    assert.match(body.message, /spec\.paramRef\.parameterNotFoundAction: Required value/);
    // kube 1.32 serves v1alpha1 for the mutating policies only (the validating ones went in 1.32).
    assert.equal(await status(t, `${AR}/v1alpha1/validatingadmissionpolicies`), 404);
    assert.equal(await status(t, `${AR}/v1alpha1/mutatingadmissionpolicies`), 200);
  } finally {
    await t.close();
  }
});

Deno.test("a ResourceSlice's capacity converts between v1alpha3 Quantity and v1beta1 DeviceCapacity both ways", async () => {
  const t = await startTestServer([ALL_ON]);
  try {
    const a = slice("from-alpha", "resource.k8s.io/v1alpha3", { mem: "8Gi", cores: "4" });
    await write(t, "POST", `${RES}/v1alpha3/resourceslices`, a);
    const asBeta = await get(t, `${RES}/v1beta1/resourceslices/from-alpha`);
    assert.deepEqual(asBeta.spec.devices[0].basic.capacity, {
      mem: { value: "8Gi" },
      cores: { value: "4" },
    });
    const back = await get(t, `${RES}/v1alpha3/resourceslices/from-alpha`);
    assert.deepEqual(back.spec, a.spec);

    const b = slice("from-beta", "resource.k8s.io/v1beta1", { mem: { value: "1Gi" } });
    await write(t, "POST", `${RES}/v1beta1/resourceslices`, b);
    const asAlpha = await get(t, `${RES}/v1alpha3/resourceslices/from-beta`);
    assert.deepEqual(asAlpha.spec.devices[0].basic.capacity, { mem: "1Gi" });
    // Written back through v1alpha3 unchanged, v1beta1 reads what it wrote.
    await write(t, "PUT", `${RES}/v1alpha3/resourceslices/from-beta`, asAlpha);
    assert.deepEqual((await get(t, `${RES}/v1beta1/resourceslices/from-beta`)).spec, b.spec);
    // Field selectors work at both versions.
    for (const v of ["v1beta1", "v1alpha3"]) {
      const list = await get(
        t,
        `${RES}/${v}/resourceslices?fieldSelector=spec.driver=gpu.example.com`,
      );
      assert.equal(list.items.length, 2, v);
    }
  } finally {
    await t.close();
  }
});

Deno.test("objects stay readable through the versions still served when the storage version is off", async () => {
  const dir = await Deno.makeTempDir({ prefix: "alpha-beta-" });
  try {
    let t = await startTestServer([ALL_ON], { dir, keepDir: true });
    try {
      await write(t, "POST", `${ST}/v1beta1/volumeattributesclasses`, {
        metadata: { name: "gold" },
        driverName: "csi.example.com",
        parameters: { iops: "5000" },
      });
      await write(t, "POST", `${RES}/v1beta1/deviceclasses`, {
        metadata: { name: "gpu" },
        spec: {},
      });
      await write(t, "POST", `${AR}/v1/validatingadmissionpolicies`, POLICY);
    } finally {
      await t.close();
    }
    t = await startTestServer([
      "--runtime-config=storage.k8s.io/v1alpha1=true,resource.k8s.io/v1alpha3=true," +
      "admissionregistration.k8s.io/v1=false,admissionregistration.k8s.io/v1beta1=true",
    ], { dir, keepDir: true });
    try {
      assert.equal(await status(t, `${ST}/v1beta1/volumeattributesclasses/gold`), 404);
      const vac = await get(t, `${ST}/v1alpha1/volumeattributesclasses/gold`);
      assert.equal(vac.apiVersion, "storage.k8s.io/v1alpha1");
      assert.deepEqual(vac.parameters, { iops: "5000" });
      assert.equal(await status(t, `${RES}/v1beta1/deviceclasses/gpu`), 404);
      assert.equal((await get(t, `${RES}/v1alpha3/deviceclasses/gpu`)).metadata.name, "gpu");
      assert.equal(await status(t, `${AR}/v1/validatingadmissionpolicies/p1`), 404);
      const p = await get(t, `${AR}/v1beta1/validatingadmissionpolicies/p1`);
      assert.deepEqual(p.spec.validations, POLICY.spec.validations);
      const groups = await get(t, "/apis/storage.k8s.io");
      assert.deepEqual(
        groups.versions.map((v: Json) => v.version),
        ["v1", "v1alpha1"],
      );
    } finally {
      await t.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
