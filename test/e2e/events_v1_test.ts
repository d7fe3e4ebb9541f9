/**
 * End-to-end over HTTPS for events.k8s.io/v1 Event, served from the core/v1 events store:
 * conversion both ways, the stricter create and update rules, field selectors, watch and
 * patches at each version, Protobuf, Table and discovery.
 */
import assert from "node:assert/strict";
import { decodeObject, decodeWatchEvent, encodeObject } from "../../shared/codec/protobuf/mod.ts";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import { type Json, watch, write } from "./_watch_helpers.ts";
import { kubectlFor, kubectlOk, runKubectl, skipWithoutKubectl } from "../support/kubectl.ts";

const PB = "application/vnd.kubernetes.protobuf";
const TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io";
const CORE = "/api/v1/namespaces/default/events";
const EV1 = "/apis/events.k8s.io/v1/namespaces/default/events";

async function withServer(fn: (t: TestServer) => Promise<void>) {
  const t = await startTestServer();
  try {
    await fn(t);
  } finally {
    await t.close();
  }
}

async function call(t: TestServer, method: string, path: string, body?: unknown, type?: string) {
  const res = await t.fetch(path, {
    method,
    headers: { "content-type": type ?? "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/** The first frame of a Protobuf watch (without its length prefix); the stream is then closed. */
async function firstFrame(res: Response): Promise<Uint8Array> {
  const reader = res.body!.getReader();
  let buf = new Uint8Array(0);
  for (;;) {
    const len = buf.length >= 4 ? new DataView(buf.buffer, buf.byteOffset).getUint32(0) : -1;
    if (len >= 0 && buf.length >= 4 + len) {
      await reader.cancel();
      return buf.slice(4, 4 + len);
    }
    const read = await reader.read();
    if (read.done) throw new Error("the watch ended before its first frame");
    const next = new Uint8Array(buf.length + read.value.length);
    next.set(buf);
    next.set(read.value, buf.length);
    buf = next;
  }
}

const POD = { kind: "Pod", namespace: "default", name: "web-1", apiVersion: "v1", uid: "u-1" };

function coreEvent(name: string): Json {
  return {
    metadata: { name },
    involvedObject: POD,
    reason: "Pulled",
    message: "Pulled the image",
    source: { component: "kubelet", host: "node-1" },
    firstTimestamp: "2025-01-01T00:00:00Z",
    lastTimestamp: "2025-01-01T00:01:00Z",
    count: 3,
    type: "Normal",
  };
}

function newEvent(name: string): Json {
  return {
    metadata: { name },
    eventTime: "2025-01-01T00:00:00.000000Z",
    reportingController: "example.com/scheduler",
    reportingInstance: "scheduler-1",
    action: "Binding",
    reason: "Scheduled",
    regarding: POD,
    related: { kind: "Node", name: "node-1", apiVersion: "v1" },
    note: "Assigned default/web-1 to node-1",
    type: "Normal",
  };
}

Deno.test("events.k8s.io/v1: a core event reads with its fields renamed, and back unchanged", async () => {
  await withServer(async (t) => {
    const created = await write(t, "POST", CORE, coreEvent("old"));
    const v1 = await write(t, "GET", `${EV1}/old`);
    assert.equal(v1.apiVersion, "events.k8s.io/v1");
    assert.deepEqual(v1.regarding, POD);
    assert.equal(v1.note, "Pulled the image");
    assert.deepEqual(v1.deprecatedSource, { component: "kubelet", host: "node-1" });
    assert.equal(v1.deprecatedFirstTimestamp, "2025-01-01T00:00:00Z");
    assert.equal(v1.deprecatedLastTimestamp, "2025-01-01T00:01:00Z");
    assert.equal(v1.deprecatedCount, 3);
    assert.equal(v1.metadata.resourceVersion, created.metadata.resourceVersion);
    for (const f of ["involvedObject", "message", "source", "count"]) {
      assert.equal(v1[f], undefined);
    }
    assert.deepEqual(await write(t, "GET", `${CORE}/old`), created);
    const list = await write(t, "GET", EV1);
    assert.equal(list.kind, "EventList");
    assert.equal(list.apiVersion, "events.k8s.io/v1");
    assert.deepEqual(list.items.map((e: Json) => e.metadata.name), ["old"]);
  });
});

Deno.test("events.k8s.io/v1: a core event without eventTime updates through events.k8s.io/v1", async () => {
  await withServer(async (t) => {
    await write(t, "POST", CORE, coreEvent("legacy"));
    const v1 = await write(t, "GET", `${EV1}/legacy`);
    assert.equal(v1.eventTime, undefined);
    v1.metadata.labels = { seen: "yes" };
    const put = await call(t, "PUT", `${EV1}/legacy`, v1);
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.deepEqual(put.body.metadata.labels, { seen: "yes" });
    // eventTime is still required of new events (by the kind's validation, not the schema).
    const { eventTime: _, ...noTime } = newEvent("fresh");
    const created = await call(t, "POST", EV1, noTime);
    assert.equal(created.status, 422);
    assert.match(created.body.message, /eventTime: Required value/);
    // ...and documented as required.
    const doc = await (await t.fetch("/openapi/v3/apis/events.k8s.io/v1")).json();
    assert.deepEqual(doc.components.schemas["io.k8s.api.events.v1.Event"].required, ["eventTime"]);
  });
});

Deno.test("events.k8s.io/v1: a new event reads as core/v1 with its fields renamed", async () => {
  await withServer(async (t) => {
    const created = await write(t, "POST", EV1, newEvent("new"));
    assert.equal(created.apiVersion, "events.k8s.io/v1");
    assert.equal(created.reportingController, "example.com/scheduler");
    const core = await write(t, "GET", `${CORE}/new`);
    assert.equal(core.reportingComponent, "example.com/scheduler");
    assert.equal(core.reportingInstance, "scheduler-1");
    assert.equal(core.message, "Assigned default/web-1 to node-1");
    assert.deepEqual(core.involvedObject, POD);
    assert.deepEqual(core.related, newEvent("x").related);
    assert.equal(core.note, undefined);
    // The core view written back through core/v1 reads the same through events.k8s.io/v1.
    await write(t, "PUT", `${CORE}/new`, core);
    const again = await write(t, "GET", `${EV1}/new`);
    const { metadata: _a, ...rest } = again;
    const { metadata: _b, ...expected } = created;
    assert.deepEqual(rest, expected);
  });
});

Deno.test("events.k8s.io/v1: create requires the new fields and refuses deprecated ones", async () => {
  await withServer(async (t) => {
    const bad = await call(t, "POST", EV1, {
      metadata: { name: "bad" },
      eventTime: "2025-01-01T00:00:00.000000Z",
      regarding: POD,
      type: "Normal",
      deprecatedCount: 2,
      deprecatedSource: { component: "kubelet" },
    });
    assert.equal(bad.status, 422, JSON.stringify(bad.body));
    const msg: string = bad.body.message;
    assert.match(msg, /^Event.events.k8s.io "bad" is invalid: /);
    for (
      const m of [
        "reportingController: Required value",
        "reportingInstance: Required value",
        "action: Required value",
        "reason: Required value",
        'deprecatedCount: Invalid value: "": needs to be unset',
        'deprecatedSource: Invalid value: "": needs to be unset',
      ]
    ) assert.ok(msg.includes(m), `${m} in ${msg}`);
    const noTime = await call(t, "POST", EV1, { ...newEvent("t"), eventTime: undefined });
    assert.equal(noTime.status, 422);
    assert.match(noTime.body.message, /eventTime: Required value/);
    const badType = await call(t, "POST", EV1, { ...newEvent("ty"), type: "Info" });
    assert.equal(badType.status, 422);
    assert.match(badType.body.message, /type: Invalid value: "": has invalid value: Info/);
    const series = await call(t, "POST", EV1, {
      ...newEvent("s"),
      series: { count: 1, lastObservedTime: "2025-01-01T00:00:00.000000Z" },
    });
    assert.equal(series.status, 422);
    assert.match(series.body.message, /series.count: Invalid value: "": should be at least 2/);
    // core/v1 keeps accepting old-style events.
    await write(t, "POST", CORE, coreEvent("legacy"));
  });
});

Deno.test("events.k8s.io/v1: patches, immutable fields and series updates", async () => {
  await withServer(async (t) => {
    await write(t, "POST", EV1, newEvent("p"));
    const labels = await call(
      t,
      "PATCH",
      `${EV1}/p`,
      { metadata: { labels: { a: "b" } } },
      "application/merge-patch+json",
    );
    assert.equal(labels.status, 200, JSON.stringify(labels.body));
    assert.equal(labels.body.metadata.labels.a, "b");
    const series = await call(
      t,
      "PATCH",
      `${EV1}/p`,
      { series: { count: 2, lastObservedTime: "2025-01-01T00:05:00.000000Z" } },
      "application/strategic-merge-patch+json",
    );
    assert.equal(series.status, 200, JSON.stringify(series.body));
    assert.equal((await write(t, "GET", `${CORE}/p`)).series.count, 2);
    const note = await call(
      t,
      "PATCH",
      `${EV1}/p`,
      [{ op: "replace", path: "/note", value: "x" }],
      "application/json-patch+json",
    );
    assert.equal(note.status, 422);
    assert.match(note.body.message, /message: Invalid value: "x": field is immutable/);
    // Through core/v1 the message may change.
    const core = await call(
      t,
      "PATCH",
      `${CORE}/p`,
      { message: "changed" },
      "application/merge-patch+json",
    );
    assert.equal(core.status, 200);
    assert.equal((await write(t, "GET", `${EV1}/p`)).note, "changed");
    const apply = await call(
      t,
      "PATCH",
      `${EV1}/p?fieldManager=ev-tool`,
      {
        apiVersion: "events.k8s.io/v1",
        kind: "Event",
        metadata: { name: "p", labels: { c: "d" } },
      },
      "application/apply-patch+yaml",
    );
    assert.equal(apply.status, 200, JSON.stringify(apply.body));
    const mf = apply.body.metadata.managedFields.find((m: Json) => m.manager === "ev-tool");
    assert.equal(mf.apiVersion, "events.k8s.io/v1");
  });
});

Deno.test("events.k8s.io/v1: field selectors on regarding, reason, type and reportingController", async () => {
  await withServer(async (t) => {
    await write(t, "POST", EV1, newEvent("a"));
    await write(t, "POST", EV1, {
      ...newEvent("b"),
      regarding: { ...POD, name: "web-2" },
      type: "Warning",
    });
    await write(t, "POST", CORE, coreEvent("c"));
    const names = async (path: string, selector: string) =>
      (await write(t, "GET", `${path}?fieldSelector=${encodeURIComponent(selector)}`)).items.map(
        (e: Json) => e.metadata.name,
      );
    assert.deepEqual(await names(EV1, "regarding.name=web-1"), ["a", "c"]);
    assert.deepEqual(await names(EV1, "type=Warning"), ["b"]);
    assert.deepEqual(await names(EV1, "reportingController=example.com/scheduler"), ["a", "b"]);
    assert.deepEqual(await names(EV1, "reason=Pulled,metadata.name=c"), ["c"]);
    assert.deepEqual(await names(EV1, "source=kubelet"), ["c"]);
    assert.deepEqual(await names(CORE, "involvedObject.name=web-2"), ["b"]);
    // core/v1: an event without a source is found by its reporting controller.
    assert.deepEqual(await names(CORE, "source=example.com/scheduler"), ["a", "b"]);
    const bad = await t.fetch(`${EV1}?fieldSelector=involvedObject.name%3Dweb-1`);
    assert.equal(bad.status, 400);
    assert.match((await bad.json()).message, /field label not supported: involvedObject.name/);
  });
});

Deno.test("events.k8s.io/v1: watch at each version converts every event", async () => {
  await withServer(async (t) => {
    const wv1 = await watch(t, "watch=true&fieldSelector=regarding.name%3Dweb-1", EV1);
    const wcore = await watch(t, "watch=true", CORE);
    await write(t, "POST", EV1, newEvent("w"));
    const patched = await call(
      t,
      "PATCH",
      `${CORE}/w`,
      { metadata: { labels: { x: "y" } } },
      "application/merge-patch+json",
    );
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    await write(t, "DELETE", `${EV1}/w`);
    const e1 = await wv1.take(3);
    const ec = await wcore.take(3);
    await wv1.cancel();
    await wcore.cancel();
    assert.deepEqual(e1.map((e) => e.type), ["ADDED", "MODIFIED", "DELETED"]);
    assert.deepEqual(ec.map((e) => e.type), ["ADDED", "MODIFIED", "DELETED"]);
    for (const e of e1) {
      assert.equal(e.object.apiVersion, "events.k8s.io/v1");
      assert.equal((e.object as Json).note, "Assigned default/web-1 to node-1");
    }
    for (const e of ec) {
      assert.equal((e.object as Json).message, "Assigned default/web-1 to node-1");
    }
  });
});

Deno.test("events.k8s.io/v1: Protobuf, Table and discovery", async () => {
  await withServer(async (t) => {
    await write(t, "POST", EV1, newEvent("pb"));
    const json = await write(t, "GET", `${EV1}/pb`);
    const res = await t.fetch(`${EV1}/pb`, { headers: { accept: PB } });
    assert.equal(res.headers.get("content-type"), PB);
    const decoded = decodeObject(new Uint8Array(await res.arrayBuffer()));
    assert.deepEqual(decoded, json);
    const put = await t.fetch(`${EV1}/pb`, {
      method: "PUT",
      headers: { "content-type": PB, accept: "application/json" },
      body: encodeObject(decoded),
    });
    assert.equal(put.status, 200, await put.clone().text());
    assert.deepEqual(await put.json(), json);
    const pbWatch = await t.fetch(`${EV1}?watch=true`, {
      headers: { accept: `${PB};stream=watch` },
    });
    const frame = await firstFrame(pbWatch);
    const added = decodeWatchEvent(frame);
    assert.equal(added.type, "ADDED");
    assert.deepEqual(added.object, json);
    const table = await (await t.fetch(EV1, { headers: { accept: TABLE } })).json();
    assert.deepEqual(
      table.columnDefinitions.filter((d: Json) => d.priority === 0).map((d: Json) => d.name),
      ["Last Seen", "Type", "Reason", "Object", "Message"],
    );
    const cells = table.rows[0].cells;
    assert.deepEqual([cells[1], cells[2], cells[3], cells[6]], [
      "Normal",
      "Scheduled",
      "pod/web-1",
      "Assigned default/web-1 to node-1",
    ]);
    const v1 = await write(t, "GET", "/apis/events.k8s.io/v1");
    const core = await write(t, "GET", "/api/v1");
    const ev = v1.resources.find((r: Json) => r.name === "events");
    assert.deepEqual(ev.shortNames, ["ev"]);
    assert.equal(ev.kind, "Event");
    assert.equal(ev.storageVersionHash, "r2yiGXH7wu8=");
    assert.equal(
      core.resources.find((r: Json) => r.name === "events").storageVersionHash,
      "r2yiGXH7wu8=",
    );
    const group = await write(t, "GET", "/apis/events.k8s.io");
    assert.equal(group.preferredVersion.groupVersion, "events.k8s.io/v1");
  });
});

Deno.test("events.k8s.io/v1: kubectl creates and lists events at both versions", async () => {
  if (skipWithoutKubectl("kubectl events")) return;
  await withServer(async (t) => {
    const k = kubectlFor({ server: t.server, dir: t.dir });
    const file = `${t.dir}/event.json`;
    await Deno.writeTextFile(
      file,
      JSON.stringify({ apiVersion: "events.k8s.io/v1", kind: "Event", ...newEvent("kubectl") }),
    );
    kubectlOk(await runKubectl(k, ["create", "-f", file]));
    const v1 = kubectlOk(await runKubectl(k, ["get", "events.v1.events.k8s.io"]));
    assert.match(v1, /Normal\s+Scheduled\s+pod\/web-1\s+Assigned default\/web-1 to node-1/);
    const core = kubectlOk(
      await runKubectl(k, ["get", "events", "-o", "jsonpath={.items[0].message}"]),
    );
    assert.equal(core, "Assigned default/web-1 to node-1");
    const events = kubectlOk(await runKubectl(k, ["events"]));
    assert.match(events, /Scheduled/);
  });
});
