/**
 * End-to-end over HTTPS for the storage.k8s.io/v1 kinds: create (defaults), get in JSON and
 * Protobuf, list as Table (and wide), the four patch types, update, the status subresource,
 * watch, delete and validation errors with Kubernetes' messages.
 */
import assert from "node:assert/strict";
import { decodeObject, encodeObject } from "../../shared/codec/protobuf/mod.ts";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import { type Json, watch, write } from "./_watch_helpers.ts";

const PB = "application/vnd.kubernetes.protobuf";
const TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io";
const S = "/apis/storage.k8s.io/v1";

interface Case {
  kind: string;
  path: string;
  body: Json;
  columns: string[];
  /** The cells of the created object's row, after the name (the age is skipped). */
  cells: unknown[];
  /** Fields the server defaults, as they should read after create. */
  defaults?: Json;
}

const CASES: Case[] = [
  {
    kind: "StorageClass",
    path: `${S}/storageclasses`,
    body: {
      metadata: { annotations: { "storageclass.kubernetes.io/is-default-class": "true" } },
      provisioner: "example.com/fast",
      parameters: { type: "ssd" },
    },
    columns: [
      "Name",
      "Provisioner",
      "ReclaimPolicy",
      "VolumeBindingMode",
      "AllowVolumeExpansion",
      "Age",
    ],
    cells: ["example.com/fast", "Delete", "Immediate", false],
    defaults: { reclaimPolicy: "Delete", volumeBindingMode: "Immediate" },
  },
  {
    kind: "CSIDriver",
    path: `${S}/csidrivers`,
    body: { spec: {} },
    columns: [
      "Name",
      "AttachRequired",
      "PodInfoOnMount",
      "StorageCapacity",
      "TokenRequests",
      "RequiresRepublish",
      "Modes",
      "Age",
    ],
    cells: [true, false, false, "<unset>", false, "Persistent"],
    defaults: {
      spec: {
        attachRequired: true,
        podInfoOnMount: false,
        volumeLifecycleModes: ["Persistent"],
        storageCapacity: false,
        fsGroupPolicy: "ReadWriteOnceWithFSType",
        requiresRepublish: false,
        seLinuxMount: false,
      },
    },
  },
  {
    kind: "CSINode",
    path: `${S}/csinodes`,
    body: {
      spec: { drivers: [{ name: "csi.example.com", nodeID: "n1", topologyKeys: ["zone"] }] },
    },
    columns: ["Name", "Drivers", "Age"],
    cells: [1],
  },
  {
    kind: "CSIStorageCapacity",
    path: `${S}/namespaces/default/csistoragecapacities`,
    body: { storageClassName: "fast", capacity: "10Gi", nodeTopology: { matchLabels: { z: "a" } } },
    columns: ["Name", "StorageClassName", "Capacity"],
    cells: ["fast", "10Gi"],
  },
  {
    kind: "VolumeAttachment",
    path: `${S}/volumeattachments`,
    body: {
      spec: {
        attacher: "csi.example.com",
        nodeName: "node-1",
        source: { persistentVolumeName: "pv1" },
      },
    },
    columns: ["Name", "Attacher", "PV", "Node", "Attached", "Age"],
    cells: ["csi.example.com", "pv1", "node-1", false],
    defaults: { status: { attached: false } },
  },
];

async function withServer(fn: (t: TestServer) => Promise<void>) {
  const t = await startTestServer();
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
  for (const query of ["", "?includeObject=Object"]) {
    const table = await (await t.fetch(`${c.path}${query}`, { headers: { accept: TABLE } }))
      .json();
    assert.equal(table.kind, "Table");
    assert.deepEqual(table.columnDefinitions.map((d: Json) => d.name), c.columns, c.kind);
    const row = table.rows[0].cells;
    const shown = c.kind === "StorageClass" ? `${name} (default)` : name;
    assert.deepEqual(row.slice(0, c.cells.length + 1), [shown, ...c.cells], c.kind);
  }
}

async function checkPatches(t: TestServer, c: Case, name: string): Promise<void> {
  const path = `${c.path}/${name}`;
  const merged = await patch(t, path, "application/merge-patch+json", {
    metadata: { labels: { merge: "yes" } },
  });
  assert.equal(merged.metadata.labels.merge, "yes");
  const jp = await patch(t, path, "application/json-patch+json", [
    { op: "add", path: "/metadata/labels/json", value: "yes" },
  ]);
  assert.equal(jp.metadata.labels.json, "yes");
  const smp = await patch(t, path, "application/strategic-merge-patch+json", {
    metadata: { labels: { smp: "yes" } },
  });
  assert.deepEqual([smp.metadata.labels.merge, smp.metadata.labels.smp], ["yes", "yes"]);
  const applied = await patch(
    t,
    path,
    "application/apply-patch+yaml",
    JSON.stringify({
      apiVersion: "storage.k8s.io/v1",
      kind: c.kind,
      metadata: { name, labels: { applied: "yes" } },
    }),
    "?fieldManager=tester",
  );
  assert.equal(applied.metadata.labels.applied, "yes");
  assert.ok(applied.metadata.managedFields.some((m: Json) => m.manager === "tester"), c.kind);
}

Deno.test("storage.k8s.io/v1 kinds serve every verb in JSON, Protobuf and Table", async () => {
  await withServer(async (t) => {
    for (const c of CASES) {
      const name = c.kind.toLowerCase();
      const w = await watch(t, "watch=true", c.path);
      const created = await write(t, "POST", c.path, {
        ...c.body,
        metadata: { ...c.body.metadata, name },
      });
      for (const [k, v] of Object.entries(c.defaults ?? {})) {
        assert.deepEqual(created[k], v, `${c.kind} ${k}`);
      }
      assert.equal((await w.next())?.type, "ADDED", c.kind);
      await checkFormats(t, c, name);
      await checkPatches(t, c, name);
      assert.equal((await w.next())?.type, "MODIFIED", c.kind);
      const list = await (await t.fetch(c.path)).json();
      assert.equal(list.kind, `${c.kind}List`);
      assert.equal(list.items.length, 1, c.kind);
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

Deno.test("storage.k8s.io/v1 discovery lists the kinds with short names and status", async () => {
  await withServer(async (t) => {
    const doc = await (await t.fetch(S)).json();
    const byName = Object.fromEntries(doc.resources.map((r: Json) => [r.name, r]));
    assert.deepEqual(byName.storageclasses.shortNames, ["sc"]);
    assert.equal(byName.storageclasses.namespaced, false);
    assert.equal(byName.csistoragecapacities.namespaced, true);
    assert.ok(byName["volumeattachments/status"]);
    for (const r of ["csidrivers", "csinodes", "volumeattachments"]) assert.ok(byName[r], r);
  });
});

async function invalid(t: TestServer, method: string, path: string, body: Json): Promise<string> {
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

Deno.test("StorageClass validation and immutability follow Kubernetes", async () => {
  await withServer(async (t) => {
    const sc = `${S}/storageclasses`;
    assert.equal(
      await invalid(t, "POST", sc, { metadata: { name: "a" } }),
      'StorageClass.storage.k8s.io "a" is invalid: provisioner: Required value',
    );
    assert.match(
      await invalid(t, "POST", sc, {
        metadata: { name: "b" },
        provisioner: "x",
        reclaimPolicy: "Recycle",
      }),
      /reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"/,
    );
    assert.match(
      await invalid(t, "POST", sc, { metadata: { name: "c" }, provisioner: "bad provisioner!" }),
      /provisioner: Invalid value: "bad provisioner!"/,
    );
    await write(t, "POST", sc, {
      metadata: { name: "keep" },
      provisioner: "example.com/p",
      parameters: { a: "1" },
    });
    assert.equal(
      await invalid(t, "PATCH", `${sc}/keep`, { provisioner: "example.com/q" }),
      'StorageClass.storage.k8s.io "keep" is invalid: provisioner: Forbidden: updates to provisioner are forbidden.',
    );
    assert.equal(
      await invalid(t, "PATCH", `${sc}/keep`, { parameters: { a: "2" } }),
      'StorageClass.storage.k8s.io "keep" is invalid: parameters: Forbidden: updates to parameters are forbidden.',
    );
    const ok = await patch(t, `${sc}/keep`, "application/merge-patch+json", {
      allowVolumeExpansion: true,
      mountOptions: ["ro"],
    });
    assert.equal(ok.allowVolumeExpansion, true);
  });
});

Deno.test("CSIDriver, CSINode, CSIStorageCapacity and VolumeAttachment validation", async () => {
  await withServer(async (t) => {
    assert.match(
      await invalid(t, "POST", `${S}/csidrivers`, {
        metadata: { name: "d" },
        spec: { fsGroupPolicy: "Sometimes" },
      }),
      /spec.fsGroupPolicy: Unsupported value: "Sometimes"/,
    );
    assert.match(
      await invalid(t, "POST", `${S}/csidrivers`, {
        metadata: { name: "d" },
        spec: { tokenRequests: [{ audience: "a", expirationSeconds: 60 }] },
      }),
      /spec.tokenRequests\[0\].expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes/,
    );
    await write(t, "POST", `${S}/csidrivers`, { metadata: { name: "d" }, spec: {} });
    assert.match(
      await invalid(t, "PATCH", `${S}/csidrivers/d`, { spec: { attachRequired: false } }),
      /spec.attachedRequired: Invalid value: false: field is immutable/,
    );
    const mutable = await patch(t, `${S}/csidrivers/d`, "application/merge-patch+json", {
      spec: { podInfoOnMount: true },
    });
    assert.equal(mutable.spec.podInfoOnMount, true);
    assert.match(
      await invalid(t, "POST", `${S}/csinodes`, {
        metadata: { name: "n" },
        spec: { drivers: [{ name: "a.b", nodeID: "" }, { name: "a.b", nodeID: "x" }] },
      }),
      /spec.drivers\[0\].nodeID: Required value.*spec.drivers\[1\].name: Duplicate value: "a.b"/,
    );
    assert.match(
      await invalid(t, "POST", `${S}/namespaces/default/csistoragecapacities`, {
        metadata: { name: "c" },
        storageClassName: "Not_Valid",
      }),
      /storageClassName: Invalid value: "Not_Valid"/,
    );
    const va = `${S}/volumeattachments`;
    assert.equal(
      await invalid(t, "POST", va, {
        metadata: { name: "v" },
        spec: { attacher: "a.b", nodeName: "n", source: {} },
      }),
      'VolumeAttachment.storage.k8s.io "v" is invalid: spec.source: Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName',
    );
    await write(t, "POST", va, {
      metadata: { name: "v" },
      spec: { attacher: "a.b", nodeName: "n", source: { persistentVolumeName: "pv" } },
      status: { attached: true },
    });
    const got = await (await t.fetch(`${va}/v`)).json();
    assert.deepEqual(got.status, { attached: false });
    assert.match(
      await invalid(t, "PATCH", `${va}/v`, { spec: { nodeName: "other" } }),
      /spec: Invalid value: .*: field is immutable/,
    );
    const st = await patch(t, `${va}/v/status`, "application/merge-patch+json", {
      status: { attached: true, attachmentMetadata: { dev: "/dev/sdb" } },
    });
    assert.equal(st.status.attached, true);
    const table = await (await t.fetch(va, { headers: { accept: TABLE } })).json();
    assert.equal(table.rows[0].cells[4], true);
  });
});

Deno.test("DefaultStorageClass admission gives new claims without a class the default one", async () => {
  await withServer(async (t) => {
    const pvcs = "/api/v1/namespaces/default/persistentvolumeclaims";
    const claim = (name: string, extra: Json = {}) => ({
      metadata: { name },
      spec: {
        accessModes: ["ReadWriteOnce"],
        resources: { requests: { storage: "1Gi" } },
        ...extra,
      },
    });
    const before = await write(t, "POST", pvcs, claim("before"));
    assert.equal(before.spec.storageClassName, undefined);
    await write(t, "POST", `${S}/storageclasses`, {
      metadata: {
        name: "standard",
        annotations: { "storageclass.kubernetes.io/is-default-class": "true" },
      },
      provisioner: "example.com/p",
    });
    const defaulted = await write(t, "POST", pvcs, claim("defaulted"));
    assert.equal(defaulted.spec.storageClassName, "standard");
    const none = await write(t, "POST", pvcs, claim("none", { storageClassName: "" }));
    assert.equal(none.spec.storageClassName, "");
    const named = await write(t, "POST", pvcs, claim("named", { storageClassName: "other" }));
    assert.equal(named.spec.storageClassName, "other");
  });
});
