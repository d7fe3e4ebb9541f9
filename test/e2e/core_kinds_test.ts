/**
 * End-to-end: the core/v1 kinds beside Services: ReplicationControllers, PodTemplates,
 * LimitRanges, ResourceQuotas, PersistentVolumeClaims and PersistentVolumes. Per kind: create
 * with defaults, Table columns, merge patch, Protobuf read back, status, validation, delete.
 */
import assert from "node:assert/strict";
import { decodeObject, encodeObject } from "../../shared/codec/protobuf/mod.ts";
import type { KubeObject, Status } from "../../shared/api/meta/v1/types.ts";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import { assertOk, assertStatus, call } from "./foundation_helpers.ts";

const TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io";
const PB = "application/vnd.kubernetes.protobuf";
const NS = "/api/v1/namespaces/default";

interface Case {
  path: string;
  obj: KubeObject;
  columns: string[];
  /** Cells of the created object's row. */
  cells: unknown[];
  /** Checks the defaults of the created object. */
  defaults(o: KubeObject): void;
  bad: [Record<string, unknown>, RegExp];
  status?: Record<string, unknown>;
}

type Obj = Record<string, unknown>;

const TEMPLATE = {
  metadata: { labels: { app: "a" } },
  spec: { containers: [{ name: "c", image: "nginx" }] },
};

const CASES: Record<string, Case> = {
  ReplicationController: {
    path: `${NS}/replicationcontrollers`,
    obj: { metadata: { name: "rc" }, spec: { template: TEMPLATE } },
    columns: ["Name", "Desired", "Current", "Ready", "Age", "Containers", "Images", "Selector"],
    cells: ["rc", 1, 0, 0, "0s", "c", "nginx", "app=a"],
    defaults(o) {
      assert.deepEqual((o.spec as Obj).selector, { app: "a" });
      assert.equal((o.spec as Obj).replicas, 1);
      assert.deepEqual(o.metadata.labels, { app: "a" });
      assert.deepEqual(o.status, { replicas: 0 });
      const c = (((o.spec as Obj).template as Obj).spec as { containers: Obj[] }).containers[0];
      assert.equal(c.terminationMessagePath, "/dev/termination-log");
    },
    bad: [
      { spec: { selector: { app: "b" }, template: TEMPLATE } },
      /spec\.template\.metadata\.labels: Invalid value: .*`selector` does not match template `labels`/,
    ],
    status: { replicas: 1, readyReplicas: 1 },
  },
  PodTemplate: {
    path: `${NS}/podtemplates`,
    obj: { metadata: { name: "pt" }, template: TEMPLATE },
    columns: ["Name", "Containers", "Images", "Pod Labels"],
    cells: ["pt", "c", "nginx", "app=a"],
    defaults(o) {
      const spec = (o.template as Obj).spec as Obj;
      assert.equal(spec.restartPolicy, "Always");
      assert.equal(spec.dnsPolicy, "ClusterFirst");
    },
    bad: [{ template: { spec: { containers: [] } } }, /template\.spec\.containers: Required value/],
  },
  LimitRange: {
    path: `${NS}/limitranges`,
    obj: { metadata: { name: "lr" }, spec: { limits: [{ type: "Container", max: { cpu: "1" } }] } },
    columns: ["Name", "Created At"],
    cells: ["lr"],
    defaults(o) {
      const item = ((o.spec as Obj).limits as Obj[])[0];
      assert.deepEqual(item.default, { cpu: "1" });
      assert.deepEqual(item.defaultRequest, { cpu: "1" });
    },
    bad: [
      { spec: { limits: [{ type: "Node" }] } },
      /spec\.limits\[0\]\.type: Unsupported value: "Node"/,
    ],
  },
  ResourceQuota: {
    path: `${NS}/resourcequotas`,
    obj: { metadata: { name: "q" }, spec: { hard: { pods: "10", "limits.memory": "1Gi" } } },
    columns: ["Name", "Age", "Request", "Limit"],
    cells: ["q", "0s", "pods: 0/0", "limits.memory: 0/0"],
    defaults(o) {
      assert.deepEqual(o.status, {});
    },
    bad: [{ spec: { scopes: ["Nope"] } }, /spec\.scopes\[0\]: Unsupported value: "Nope"/],
    status: { hard: { pods: "10" }, used: { pods: "2" } },
  },
  PersistentVolumeClaim: {
    path: `${NS}/persistentvolumeclaims`,
    obj: {
      metadata: { name: "c" },
      spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
    },
    columns: [
      "Name",
      "Status",
      "Volume",
      "Capacity",
      "Access Modes",
      "StorageClass",
      "VolumeAttributesClass",
      "Age",
      "VolumeMode",
    ],
    cells: ["c", "Pending", "", "", "", "", "<unset>", "0s", "Filesystem"],
    defaults(o) {
      assert.equal((o.spec as Obj).volumeMode, "Filesystem");
      assert.deepEqual(o.status, { phase: "Pending" });
    },
    bad: [
      { spec: { accessModes: [] } },
      /spec\.accessModes: Required value: at least 1 access mode is required/,
    ],
    status: { phase: "Bound" },
  },
  PersistentVolume: {
    path: "/api/v1/persistentvolumes",
    obj: {
      metadata: { name: "v" },
      spec: {
        capacity: { storage: "5Gi" },
        accessModes: ["ReadWriteOnce", "ReadOnlyMany"],
        hostPath: { path: "/x" },
      },
    },
    columns: [
      "Name",
      "Capacity",
      "Access Modes",
      "Reclaim Policy",
      "Status",
      "Claim",
      "StorageClass",
      "VolumeAttributesClass",
      "Reason",
      "Age",
      "VolumeMode",
    ],
    cells: ["v", "5Gi", "RWO,ROX", "Retain", "Pending", "", "", "<unset>", "", "0s", "Filesystem"],
    defaults(o) {
      assert.equal((o.spec as Obj).persistentVolumeReclaimPolicy, "Retain");
      assert.equal((o.status as Obj).phase, "Pending");
    },
    bad: [
      { spec: { capacity: { storage: "1Gi" }, accessModes: ["ReadWriteOnce"] } },
      /spec: Required value: must specify a volume type/,
    ],
    status: { phase: "Available" },
  },
};

async function withServer(fn: (t: TestServer) => Promise<void>): Promise<void> {
  // The REST behaviour of each kind, without controllers: the resource quota controller would
  // fill in a ResourceQuota's status while the test reads and writes it.
  const t = await startTestServer([], { optionsHook: (o) => o.runControllers = false });
  try {
    // What the serviceaccounts controller would make: pods run as `default` (ServiceAccount
    // admission looks it up).
    assertOk(
      await call(t, "POST", "/api/v1/namespaces/default/serviceaccounts", {
        metadata: { name: "default" },
      }),
      201,
    );
    await fn(t);
  } finally {
    await t.close();
  }
}

for (const [kind, c] of Object.entries(CASES)) {
  Deno.test(`${kind}: create, Table, patch, status, Protobuf, validation and delete`, async () => {
    await withServer(async (t) => {
      const name = c.obj.metadata.name!;
      const created = assertOk(
        await call(t, "POST", c.path, { apiVersion: "v1", kind, ...c.obj }),
        201,
      );
      c.defaults(created);
      const table = assertOk(
        await call<{ columnDefinitions: { name: string }[]; rows: { cells: unknown[] }[] }>(
          t,
          "GET",
          c.path,
          undefined,
          { accept: TABLE },
        ),
        200,
      );
      assert.deepEqual(table.columnDefinitions.map((d) => d.name), c.columns);
      const row = table.rows.find((r) => r.cells[0] === name)!;
      // Ages ("0s" in the expectation) depend on the clock: any seconds value will do.
      const cells = row.cells.slice(0, c.cells.length)
        .map((v, i) => c.cells[i] === "0s" && /^\d+s$/.test(String(v)) ? "0s" : v);
      assert.deepEqual(cells, c.cells);

      const patched = assertOk(
        await call(
          t,
          "PATCH",
          `${c.path}/${name}`,
          JSON.stringify({ metadata: { labels: { x: "y" } } }),
          { "content-type": "application/merge-patch+json" },
        ),
        200,
      );
      assert.equal(patched.metadata.labels?.x, "y");
      if (c.status) {
        const st = assertOk(
          await call(t, "PUT", `${c.path}/${name}/status`, { ...patched, status: c.status }),
          200,
        );
        assert.deepEqual(st.status, c.status);
        // A PUT of the main resource keeps the status.
        const put = assertOk(await call(t, "PUT", `${c.path}/${name}`, { ...st, status: {} }), 200);
        assert.deepEqual(put.status, c.status);
      }
      const pb = await t.fetch(`${c.path}/${name}`, { headers: { accept: PB } });
      assert.equal(pb.status, 200);
      const decoded = decodeObject(new Uint8Array(await pb.arrayBuffer())) as KubeObject;
      assert.equal(decoded.kind, kind);
      const copy = { ...decoded, metadata: { name: `${name}2` } } as KubeObject;
      const res = await t.fetch(c.path, {
        method: "POST",
        body: encodeObject(copy),
        headers: { "content-type": PB },
      });
      assert.equal(res.status, 201, await res.text());

      const bad = await call<Status>(t, "POST", c.path, {
        apiVersion: "v1",
        kind,
        metadata: { name: "bad" },
        ...c.bad[0],
      });
      assertStatus(bad, 422, "Invalid");
      assert.match(bad.body.message ?? "", c.bad[1]);
      const del = assertOk(await call(t, "DELETE", `${c.path}/${name}`), 200);
      // Claims and volumes carry StorageObjectInUseProtection's finalizer, which the storage
      // protection controller (not running here) would release: they wait, terminating.
      const protection = created.metadata.finalizers?.find((f) => f.endsWith("-protection"));
      if (protection) {
        const held = assertOk(await call(t, "GET", `${c.path}/${name}`), 200);
        assert.ok(held.metadata.deletionTimestamp);
        assert.deepEqual(held.metadata.finalizers, [protection]);
        assertOk(
          await call(
            t,
            "PATCH",
            `${c.path}/${name}`,
            JSON.stringify({ metadata: { finalizers: null } }),
            { "content-type": "application/merge-patch+json" },
          ),
          200,
        );
      }
      assertStatus(await call(t, "GET", `${c.path}/${name}`), 404);
      assert.ok(del);
    });
  });
}

Deno.test("pods/binding and bindings assign a pod to a node once", async () => {
  await withServer(async (t) => {
    const pod = (name: string) => ({
      metadata: { name },
      spec: { containers: [{ name: "c", image: "nginx" }] },
    });
    assertOk(await call(t, "POST", `${NS}/pods`, pod("a")), 201);
    assertOk(await call(t, "POST", `${NS}/pods`, pod("b")), 201);
    const binding = {
      apiVersion: "v1",
      kind: "Binding",
      metadata: { name: "a" },
      target: { kind: "Node", name: "n1" },
    };
    const ok = await call<Status>(t, "POST", `${NS}/pods/a/binding`, binding);
    assert.equal(ok.status, 201, ok.text);
    assert.equal(ok.body.status, "Success");
    const a = assertOk(await call(t, "GET", `${NS}/pods/a`), 200);
    assert.equal((a.spec as Obj).nodeName, "n1");
    const conds = (a.status as { conditions: Obj[] }).conditions;
    assert.equal(conds.find((c) => c.type === "PodScheduled")?.status, "True");
    const again = await call<Status>(t, "POST", `${NS}/pods/a/binding`, {
      ...binding,
      target: { name: "n2" },
    });
    assertStatus(again, 409, "Conflict");
    assert.match(again.body.message ?? "", /pod a is already assigned to node "n1"/);
    const viaBindings = await call<Status>(t, "POST", `${NS}/bindings`, {
      ...binding,
      metadata: { name: "b" },
    });
    assert.equal(viaBindings.status, 201, viaBindings.text);
    assert.equal((assertOk(await call(t, "GET", `${NS}/pods/b`), 200).spec as Obj).nodeName, "n1");
    const bad = await call<Status>(t, "POST", `${NS}/bindings`, {
      ...binding,
      metadata: { name: "b" },
      target: {},
    });
    assertStatus(bad, 422);
    assert.match(bad.body.message ?? "", /target\.name: Required value/);
    assertStatus(
      await call(t, "POST", `${NS}/pods/missing/binding`, {
        ...binding,
        metadata: { name: "missing" },
      }),
      404,
    );
  });
});

Deno.test("componentstatuses report the storage's health, read-only", async () => {
  await withServer(async (t) => {
    const list = assertOk(
      await call<{ kind: string; items: KubeObject[] }>(t, "GET", "/api/v1/componentstatuses"),
      200,
    );
    assert.equal(list.kind, "ComponentStatusList");
    assert.deepEqual(list.items.map((i) => [i.metadata.name, i.conditions]), [
      ["storage-0", [{ type: "Healthy", status: "True", message: "ok" }]],
    ]);
    const one = assertOk(await call(t, "GET", "/api/v1/componentstatuses/storage-0"), 200);
    assert.equal(one.kind, "ComponentStatus");
    assertStatus(await call(t, "GET", "/api/v1/componentstatuses/nope"), 404);
    const table = assertOk(
      await call<{ columnDefinitions: { name: string }[]; rows: { cells: unknown[] }[] }>(
        t,
        "GET",
        "/api/v1/componentstatuses",
        undefined,
        { accept: TABLE },
      ),
      200,
    );
    assert.deepEqual(table.columnDefinitions.map((d) => d.name), [
      "Name",
      "Status",
      "Message",
      "Error",
    ]);
    assert.deepEqual(table.rows[0].cells, ["storage-0", "Healthy", "ok", ""]);
    const pb = await t.fetch("/api/v1/componentstatuses", { headers: { accept: PB } });
    assert.equal(
      (decodeObject(new Uint8Array(await pb.arrayBuffer())) as KubeObject).kind,
      "ComponentStatusList",
    );
    assertStatus(
      await call(t, "POST", "/api/v1/componentstatuses", { metadata: { name: "x" } }),
      405,
    );
    assertStatus(await call(t, "DELETE", "/api/v1/componentstatuses/storage-0"), 405);
  });
});
