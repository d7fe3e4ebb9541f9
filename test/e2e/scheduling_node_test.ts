/**
 * End-to-end over HTTPS for scheduling.k8s.io/v1 PriorityClass (with the system classes ensured
 * at start) and node.k8s.io/v1 RuntimeClass: every verb, Protobuf, Table, the four patch types,
 * watch, validation errors; and kubectl 1.32 where it is installed.
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
const PC = "/apis/scheduling.k8s.io/v1/priorityclasses";
const RC = "/apis/node.k8s.io/v1/runtimeclasses";

async function withServer(fn: (t: TestServer) => Promise<void>) {
  // These tests write pods back as they read them: no scheduler updates them meanwhile.
  const t = await startTestServer(["--disable-scheduler"]);
  try {
    await fn(t);
  } finally {
    await t.close();
  }
}

async function send(t: TestServer, method: string, path: string, type: string, body: unknown) {
  const res = await t.fetch(path, {
    method,
    headers: { "content-type": type },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

async function patch(t: TestServer, path: string, type: string, body: unknown, query = "") {
  const r = await send(t, "PATCH", `${path}${query}`, type, body);
  assert.equal(r.status, 200, `PATCH ${path} (${type}): ${JSON.stringify(r.json)}`);
  return r.json;
}

async function roundTrip(t: TestServer, path: string): Promise<void> {
  const asJson = await (await t.fetch(path)).json();
  const res = await t.fetch(path, { headers: { accept: PB } });
  assert.equal(res.headers.get("content-type"), PB);
  const asPb = decodeObject(new Uint8Array(await res.arrayBuffer()));
  assert.deepEqual(asPb, asJson);
  const put = await t.fetch(path, {
    method: "PUT",
    headers: { "content-type": PB, accept: "application/json" },
    body: encodeObject(asPb),
  });
  assert.equal(put.status, 200, await put.clone().text());
  assert.deepEqual(await put.json(), asJson);
}

async function allPatches(t: TestServer, path: string, apiVersion: string, kind: string) {
  const name = path.slice(path.lastIndexOf("/") + 1);
  await patch(t, path, "application/merge-patch+json", { metadata: { labels: { m: "1" } } });
  await patch(t, path, "application/json-patch+json", [
    { op: "add", path: "/metadata/labels/j", value: "1" },
  ]);
  await patch(t, path, "application/strategic-merge-patch+json", {
    metadata: { labels: { s: "1" } },
  });
  const applied = await patch(
    t,
    path,
    "application/apply-patch+yaml",
    JSON.stringify({ apiVersion, kind, metadata: { name, labels: { a: "1" } } }),
    "?fieldManager=tester",
  );
  assert.deepEqual(applied.metadata.labels, { m: "1", j: "1", s: "1", a: "1" });
}

Deno.test("the system priority classes exist at start and may not be deleted or changed", async () => {
  await withServer(async (t) => {
    const list = await (await t.fetch(PC)).json();
    const byName = Object.fromEntries(list.items.map((i: Json) => [i.metadata.name, i]));
    assert.equal(byName["system-cluster-critical"].value, 2000000000);
    assert.equal(byName["system-node-critical"].value, 2000001000);
    assert.equal(byName["system-node-critical"].preemptionPolicy, "PreemptLowerPriority");
    assert.equal(
      byName["system-node-critical"].description,
      "Used for system critical pods that must not be moved from their current node.",
    );
    const del = await t.fetch(`${PC}/system-node-critical`, { method: "DELETE" });
    assert.equal(del.status, 403);
    assert.equal(
      (await del.json()).message,
      'priorityclasses.scheduling.k8s.io "system-node-critical" is forbidden: this is a system priority class and cannot be deleted',
    );
    const all = await t.fetch(PC, { method: "DELETE" });
    assert.equal(all.status, 200);
    await all.body?.cancel();
    assert.equal((await t.fetch(`${PC}/system-cluster-critical`)).status, 200);
    const changed = await send(
      t,
      "PATCH",
      `${PC}/system-cluster-critical`,
      "application/merge-patch+json",
      { value: 5 },
    );
    assert.equal(changed.status, 422);
    assert.equal(
      changed.json.message,
      'PriorityClass.scheduling.k8s.io "system-cluster-critical" is invalid: value: Forbidden: may not be changed in an update.',
    );
  });
});

Deno.test("PriorityClass serves every verb in JSON, Protobuf and Table", async () => {
  await withServer(async (t) => {
    const w = await watch(t, "watch=true", PC);
    const created = await write(t, "POST", PC, { metadata: { name: "high" }, value: 1000 });
    assert.equal(created.preemptionPolicy, "PreemptLowerPriority");
    let ev = await w.next();
    while (ev && ev.object.metadata.name !== "high") ev = await w.next();
    assert.equal(ev?.type, "ADDED");
    await roundTrip(t, `${PC}/high`);
    await allPatches(t, `${PC}/high`, "scheduling.k8s.io/v1", "PriorityClass");
    const desc = await patch(t, `${PC}/high`, "application/merge-patch+json", {
      description: "now described",
      globalDefault: true,
    });
    assert.equal(desc.description, "now described");
    assert.equal((await w.next())?.type, "MODIFIED");
    const table = await (await t.fetch(PC, { headers: { accept: TABLE } })).json();
    assert.deepEqual(
      table.columnDefinitions.map((d: Json) => [d.name, d.priority]),
      [["Name", 0], ["Value", 0], ["Global-Default", 0], ["Age", 0], ["PreemptionPolicy", 0]],
    );
    const row = table.rows.find((r: Json) => r.cells[0] === "high");
    assert.deepEqual([row.cells[1], row.cells[2], row.cells[4]], [
      1000,
      true,
      "PreemptLowerPriority",
    ]);
    const del = await t.fetch(`${PC}/high`, { method: "DELETE" });
    assert.equal(del.status, 200);
    await del.body?.cancel();
    ev = await w.next();
    while (ev && ev.type !== "DELETED") ev = await w.next();
    assert.equal(ev?.object.metadata.name, "high");
    await w.cancel();
  });
});

Deno.test("PriorityClass validation follows Kubernetes", async () => {
  await withServer(async (t) => {
    const json = "application/json";
    const reserved = await send(t, "POST", PC, json, { metadata: { name: "system-x" }, value: 1 });
    assert.equal(reserved.status, 422);
    assert.equal(
      reserved.json.message,
      `PriorityClass.scheduling.k8s.io "system-x" is invalid: metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-x is not a known system priority class`,
    );
    const big = await send(t, "POST", PC, json, { metadata: { name: "big" }, value: 1000000001 });
    assert.equal(
      big.json.message,
      'PriorityClass.scheduling.k8s.io "big" is invalid: value: Forbidden: maximum allowed value of a user defined priority is 1000000000',
    );
    const policy = await send(t, "POST", PC, json, {
      metadata: { name: "p" },
      value: 1,
      preemptionPolicy: "Sometimes",
    });
    assert.equal(policy.status, 422);
    assert.match(policy.json.message, /preemptionPolicy: Unsupported value: "Sometimes"/);
    await write(t, "POST", PC, {
      metadata: { name: "never" },
      value: 1,
      preemptionPolicy: "Never",
    });
    const flip = await send(t, "PATCH", `${PC}/never`, "application/merge-patch+json", {
      preemptionPolicy: "PreemptLowerPriority",
    });
    assert.equal(flip.status, 422);
    assert.match(
      flip.json.message,
      /preemptionPolicy: Invalid value: "PreemptLowerPriority": field is immutable/,
    );
  });
});

Deno.test("Priority admission keeps one global default and resolves pods' priority", async () => {
  await withServer(async (t) => {
    const json = "application/json";
    await write(t, "POST", PC, { metadata: { name: "low" }, value: 10, globalDefault: true });
    const second = await send(t, "POST", PC, json, {
      metadata: { name: "other" },
      value: 20,
      globalDefault: true,
    });
    assert.equal(second.status, 403);
    assert.equal(
      second.json.message,
      'priorityclasses.scheduling.k8s.io "other" is forbidden: PriorityClass low is already marked as default. Only one default can exist',
    );
    await write(t, "POST", PC, {
      metadata: { name: "batch" },
      value: 5,
      preemptionPolicy: "Never",
    });
    const pods = "/api/v1/namespaces/default/pods";
    const container = { name: "c", image: "busybox" };
    const plain = await write(t, "POST", pods, {
      metadata: { name: "plain" },
      spec: { containers: [container] },
    });
    assert.deepEqual(
      [plain.spec.priorityClassName, plain.spec.priority, plain.spec.preemptionPolicy],
      ["low", 10, "PreemptLowerPriority"],
    );
    const critical = await write(t, "POST", pods, {
      metadata: { name: "critical" },
      spec: { containers: [container], priorityClassName: "system-node-critical" },
    });
    assert.equal(critical.spec.priority, 2000001000);
    const { priority: _p, preemptionPolicy: _pp, ...rest } = critical.spec;
    const kept = await write(t, "PUT", `${pods}/critical`, { ...critical, spec: rest });
    assert.deepEqual(
      [kept.spec.priority, kept.spec.preemptionPolicy],
      [2000001000, "PreemptLowerPriority"],
    );
    const never = await write(t, "POST", pods, {
      metadata: { name: "never" },
      spec: { containers: [container], priorityClassName: "batch" },
    });
    assert.deepEqual([never.spec.priority, never.spec.preemptionPolicy], [5, "Never"]);
    const missing = await send(t, "POST", pods, json, {
      metadata: { name: "missing" },
      spec: { containers: [container], priorityClassName: "nope" },
    });
    assert.equal(missing.status, 403);
    assert.equal(
      missing.json.message,
      'pods "missing" is forbidden: no PriorityClass with name nope was found',
    );
    const mismatch = await send(t, "POST", pods, json, {
      metadata: { name: "mismatch" },
      spec: { containers: [container], priorityClassName: "batch", priority: 7 },
    });
    assert.equal(mismatch.status, 403);
    assert.match(mismatch.json.message, /the integer value of priority \(7\) must not be provided/);
  });
});

Deno.test("RuntimeClass serves every verb and validates its handler", async () => {
  await withServer(async (t) => {
    const w = await watch(t, "watch=true", RC);
    await write(t, "POST", RC, {
      metadata: { name: "gvisor" },
      handler: "runsc",
      overhead: { podFixed: { cpu: "250m", memory: "64Mi" } },
      scheduling: {
        nodeSelector: { sandbox: "yes" },
        tolerations: [{ key: "sandbox", operator: "Exists", effect: "NoSchedule" }],
      },
    });
    assert.equal((await w.next())?.type, "ADDED");
    await roundTrip(t, `${RC}/gvisor`);
    await allPatches(t, `${RC}/gvisor`, "node.k8s.io/v1", "RuntimeClass");
    assert.equal((await w.next())?.type, "MODIFIED");
    const table = await (await t.fetch(RC, { headers: { accept: TABLE } })).json();
    assert.deepEqual(table.columnDefinitions.map((d: Json) => d.name), ["Name", "Handler", "Age"]);
    assert.deepEqual(table.rows[0].cells.slice(0, 2), ["gvisor", "runsc"]);
    const changed = await send(t, "PATCH", `${RC}/gvisor`, "application/merge-patch+json", {
      handler: "runc",
    });
    assert.equal(changed.status, 422);
    assert.equal(
      changed.json.message,
      'RuntimeClass.node.k8s.io "gvisor" is invalid: handler: Invalid value: "runc": field is immutable',
    );
    const bad = await send(t, "POST", RC, "application/json", {
      metadata: { name: "bad" },
      handler: "Not_A_Label",
    });
    assert.equal(bad.status, 422);
    assert.match(
      bad.json.message,
      /handler: Invalid value: "Not_A_Label": a lowercase RFC 1123 label/,
    );
    const del = await t.fetch(`${RC}/gvisor`, { method: "DELETE" });
    assert.equal(del.status, 200);
    await del.body?.cancel();
    let ev = await w.next();
    while (ev && ev.type !== "DELETED") ev = await w.next();
    assert.equal(ev?.type, "DELETED");
    await w.cancel();
  });
});

Deno.test({
  name: "kubectl creates a priority class and gets sc, pc, runtimeclass and csidrivers",
  ignore: skipWithoutKubectl("the kubectl scheduling and storage tests"),
  async fn() {
    const s = await startTestServer();
    try {
      const k = kubectlFor(s);
      assert.match(
        ok(
          await kubectl(k, ["create", "priorityclass", "high", "--value=1000", "--description=x"]),
        ),
        /priorityclass.scheduling.k8s.io\/high created/,
      );
      const pc = JSON.parse(ok(await kubectl(k, ["get", "pc", "high", "-o", "json"])));
      assert.deepEqual([pc.value, pc.description, pc.preemptionPolicy], [
        1000,
        "x",
        "PreemptLowerPriority",
      ]);
      await write(s, "POST", "/apis/storage.k8s.io/v1/storageclasses", {
        metadata: {
          name: "fast",
          annotations: { "storageclass.kubernetes.io/is-default-class": "true" },
        },
        provisioner: "example.com/fast",
      });
      await write(s, "POST", RC, { metadata: { name: "gvisor" }, handler: "runsc" });
      await write(s, "POST", "/apis/storage.k8s.io/v1/csidrivers", {
        metadata: { name: "csi.example.com" },
        spec: {},
      });
      const out = ok(await kubectl(k, ["get", "sc,pc,runtimeclass,csidrivers"]));
      assert.match(
        out,
        /NAME\s+PROVISIONER\s+RECLAIMPOLICY\s+VOLUMEBINDINGMODE\s+ALLOWVOLUMEEXPANSION\s+AGE\n/,
      );
      assert.match(
        out,
        /storageclass.storage.k8s.io\/fast \(default\)\s+example.com\/fast\s+Delete\s+Immediate\s+false\s+/,
      );
      assert.match(out, /NAME\s+VALUE\s+GLOBAL-DEFAULT\s+AGE\s+PREEMPTIONPOLICY\n/);
      assert.match(
        out,
        /priorityclass.scheduling.k8s.io\/high\s+1000\s+false\s+\S+\s+PreemptLowerPriority\n/,
      );
      assert.match(
        out,
        /priorityclass.scheduling.k8s.io\/system-node-critical\s+2000001000\s+false/,
      );
      assert.match(out, /NAME\s+HANDLER\s+AGE\n/);
      assert.match(out, /runtimeclass.node.k8s.io\/gvisor\s+runsc\s+/);
      assert.match(
        out,
        /NAME\s+ATTACHREQUIRED\s+PODINFOONMOUNT\s+STORAGECAPACITY\s+TOKENREQUESTS\s+REQUIRESREPUBLISH\s+MODES\s+AGE\n/,
      );
      assert.match(
        out,
        /csidriver.storage.k8s.io\/csi.example.com\s+true\s+false\s+false\s+<unset>\s+false\s+Persistent\s+/,
      );
      const wide = ok(await kubectl(k, ["get", "pc", "-o", "wide"]));
      assert.match(wide, /^NAME\s+VALUE\s+GLOBAL-DEFAULT\s+AGE\s+PREEMPTIONPOLICY\n/);
      const explained = ok(await kubectl(k, ["explain", "sc.reclaimPolicy"]));
      assert.match(explained, /GROUP:\s+storage.k8s.io\s+KIND:\s+StorageClass/);
      const resources = ok(await kubectl(k, ["api-resources", "--api-group=scheduling.k8s.io"]));
      assert.match(
        resources,
        /priorityclasses\s+pc\s+scheduling.k8s.io\/v1\s+false\s+PriorityClass/,
      );
      const nodeGroup = ok(await kubectl(k, ["api-resources", "--api-group=node.k8s.io"]));
      assert.match(nodeGroup, /runtimeclasses\s+node.k8s.io\/v1\s+false\s+RuntimeClass/);
      const del = await kubectl(k, ["delete", "pc", "system-cluster-critical"]);
      assert.notEqual(del.code, 0);
      assert.match(del.stderr, /this is a system priority class and cannot be deleted/);
    } finally {
      await s.close();
    }
  },
});

Deno.test("RuntimeClass admission sets a pod's overhead and scheduling from its class", async () => {
  await withServer(async (t) => {
    const json = "application/json";
    await write(t, "POST", RC, {
      metadata: { name: "kata" },
      handler: "kata",
      overhead: { podFixed: { cpu: "250m" } },
      scheduling: {
        nodeSelector: { sandbox: "yes" },
        tolerations: [{ key: "sandbox", operator: "Exists", effect: "NoSchedule" }],
      },
    });
    const pods = "/api/v1/namespaces/default/pods";
    const container = { name: "c", image: "busybox" };
    const pod = await write(t, "POST", pods, {
      metadata: { name: "sandboxed" },
      spec: { containers: [container], runtimeClassName: "kata", nodeSelector: { disk: "ssd" } },
    });
    assert.deepEqual(pod.spec.overhead, { cpu: "250m" });
    assert.deepEqual(pod.spec.nodeSelector, { disk: "ssd", sandbox: "yes" });
    // DefaultTolerationSeconds runs before RuntimeClass (kube's order); the class's come last.
    assert.deepEqual(pod.spec.tolerations, [
      {
        key: "node.kubernetes.io/not-ready",
        operator: "Exists",
        effect: "NoExecute",
        tolerationSeconds: 300,
      },
      {
        key: "node.kubernetes.io/unreachable",
        operator: "Exists",
        effect: "NoExecute",
        tolerationSeconds: 300,
      },
      { key: "sandbox", operator: "Exists", effect: "NoSchedule" },
    ]);
    const missing = await send(t, "POST", pods, json, {
      metadata: { name: "missing" },
      spec: { containers: [container], runtimeClassName: "nope" },
    });
    assert.equal(missing.status, 403);
    assert.equal(
      missing.json.message,
      'pods "missing" is forbidden: pod rejected: RuntimeClass "nope" not found',
    );
    const conflict = await send(t, "POST", pods, json, {
      metadata: { name: "conflict" },
      spec: { containers: [container], runtimeClassName: "kata", nodeSelector: { sandbox: "no" } },
    });
    assert.equal(conflict.status, 403);
    assert.match(
      conflict.json.message,
      /conflict: runtimeClass.scheduling.nodeSelector\[sandbox\] = yes; pod.spec.nodeSelector\[sandbox\] = no/,
    );
    const stray = await send(t, "POST", pods, json, {
      metadata: { name: "stray" },
      spec: { containers: [container], overhead: { cpu: "1" } },
    });
    assert.equal(stray.status, 403);
    assert.match(stray.json.message, /Pod Overhead set without corresponding RuntimeClass/);
  });
});
