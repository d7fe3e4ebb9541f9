import assert from "node:assert/strict";
import { decodeObject, encodeObject } from "../../shared/codec/protobuf/mod.ts";
import { kubectlFor, runKubectl, skipWithoutKubectl } from "../support/kubectl.ts";
import { startTestServer, type TestServer } from "../support/test_server.ts";

const PB = "application/vnd.kubernetes.protobuf";
const TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";
const dir = new URL("../testdata/protobuf/", import.meta.url);

async function bytes(res: Response): Promise<Uint8Array> {
  return new Uint8Array(await res.arrayBuffer());
}

/** Strips what the server sets, so a fixture can be created. */
function fresh(obj: Record<string, unknown>): Record<string, unknown> {
  const o = structuredClone(obj) as Record<string, Record<string, unknown>>;
  for (
    const k of [
      "uid",
      "resourceVersion",
      "creationTimestamp",
      "generation",
      "managedFields",
      "ownerReferences",
      "generateName",
    ]
  ) {
    delete o.metadata[k];
  }
  return o;
}

const FIXTURES: [string, string][] = [
  ["Namespace", "/api/v1/namespaces"],
  ["Node", "/api/v1/nodes"],
  // The ServiceAccount fixture ("web") first: the pod fixture runs as it (ServiceAccount admission).
  ["ServiceAccount", "/api/v1/namespaces/default/serviceaccounts"],
  ["Pod", "/api/v1/namespaces/default/pods"],
  ["ConfigMap", "/api/v1/namespaces/default/configmaps"],
  ["Secret", "/api/v1/namespaces/default/secrets"],
  ["Event", "/api/v1/namespaces/default/events"],
  ["Lease", "/apis/coordination.k8s.io/v1/namespaces/default/leases"],
];

async function fixtures(): Promise<Map<string, Record<string, unknown>>> {
  const all: Record<string, unknown>[] = [
    ...JSON.parse(await Deno.readTextFile(new URL("objects.json", dir))),
    JSON.parse(await Deno.readTextFile(new URL("pod.json", dir))),
    JSON.parse(await Deno.readTextFile(new URL("node.json", dir))),
  ];
  const m = new Map<string, Record<string, unknown>>();
  for (const o of all) {
    const key = `${o.apiVersion}/${o.kind}`;
    if (!m.has(key)) m.set(key, o);
  }
  return m;
}

async function withServer(fn: (t: TestServer) => Promise<void>, flags: string[] = []) {
  const t = await startTestServer(flags);
  try {
    await fn(t);
  } finally {
    await t.close();
  }
}

Deno.test("server round-trips every built-in kind JSON → Protobuf → JSON losslessly", async () => {
  const fx = await fixtures();
  await withServer(async (t) => {
    // The pod fixture names the priority class "high" (Priority admission wants it to exist).
    const pc = await t.fetch("/apis/scheduling.k8s.io/v1/priorityclasses", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ metadata: { name: "high" }, value: 0 }),
    });
    assert.equal(pc.status, 201, await pc.text());
    for (const [kind, path] of FIXTURES) {
      const src = [...fx.values()].find((o) =>
        o.kind === kind && (kind !== "Event" || o.apiVersion === "v1")
      )!;
      const body = fresh(src) as { metadata: { namespace?: string; name: string } };
      if (body.metadata.namespace) body.metadata.namespace = "default";
      const created = await t.fetch(path, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      assert.equal(created.status, 201, `${kind}: ${await created.clone().text()}`);
      const name = (await created.json()).metadata.name;
      const asJson = await (await t.fetch(`${path}/${name}`)).json();
      const res = await t.fetch(`${path}/${name}`, {
        headers: { accept: `${PB}, application/json` },
      });
      assert.equal(res.headers.get("content-type"), PB, kind);
      const asPb = decodeObject(await bytes(res));
      assert.deepEqual(asPb, asJson, kind);
      // Protobuf in, JSON out (mixed encodings); nothing changed, so nothing is written.
      const put = await t.fetch(`${path}/${name}`, {
        method: "PUT",
        headers: { "content-type": PB, accept: "application/json" },
        body: encodeObject(asPb),
      });
      assert.equal(put.status, 200, `${kind}: ${await put.clone().text()}`);
      assert.deepEqual(await put.json(), asJson, kind);
      // Lists in Protobuf too.
      const list = await t.fetch(path, { headers: { accept: PB } });
      const decoded = decodeObject(await bytes(list)) as { kind: string; items: unknown[] };
      assert.equal(decoded.kind, `${kind}List`);
      assert.ok(decoded.items.length > 0);
    }
    // Status errors in Protobuf when asked.
    const missing = await t.fetch("/api/v1/namespaces/default/pods/nope", {
      headers: { accept: PB },
    });
    assert.equal(missing.status, 404);
    assert.equal(missing.headers.get("content-type"), PB);
    assert.equal((decodeObject(await bytes(missing)) as { reason: string }).reason, "NotFound");
    // A malformed Protobuf body is 400.
    const bad = await t.fetch("/api/v1/namespaces/default/configmaps", {
      method: "POST",
      headers: { "content-type": PB },
      body: new Uint8Array([1, 2, 3, 4, 5]),
    });
    assert.equal(bad.status, 400);
    await bad.body?.cancel();
  });
});

Deno.test("server applies field validation levels to JSON and YAML bodies", async () => {
  await withServer(async (t) => {
    const cm = "/api/v1/namespaces/default/configmaps";
    const json = (name: string) =>
      `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"},"data":{"a":"1","a":"2"},"spec":{"x":1}}`;
    const yaml = (name: string) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  a: "1"\n  a: "2"\nspec: {x: 1}\n`;
    for (
      const [ct, body, dup] of [
        ["application/json", json, 'duplicate field "data.a"'],
        ["application/yaml", yaml, 'line 7: key "a" already set in map'],
      ] as const
    ) {
      const tag = ct.split("/")[1];
      const warn = await t.fetch(cm, {
        method: "POST",
        headers: { "content-type": ct },
        body: body(`w-${tag}`),
      });
      assert.equal(warn.status, 201);
      assert.equal(
        warn.headers.get("warning"),
        `299 - "unknown field \\"spec\\"", 299 - ${JSON.stringify(dup)}`,
      );
      const created = await warn.json();
      assert.deepEqual(created.data, { a: "2" });
      assert.equal(created.spec, undefined);
      const strict = await t.fetch(`${cm}?fieldValidation=Strict`, {
        method: "POST",
        headers: { "content-type": ct },
        body: body(`s-${tag}`),
      });
      assert.equal(strict.status, 400);
      assert.equal(
        (await strict.json()).message,
        `strict decoding error: unknown field "spec", ${dup}`,
      );
      const ignore = await t.fetch(`${cm}?fieldValidation=Ignore`, {
        method: "POST",
        headers: { "content-type": ct },
        body: body(`i-${tag}`),
      });
      assert.equal(ignore.status, 201);
      assert.equal(ignore.headers.get("warning"), null);
      await ignore.body?.cancel();
    }
    const typed = await t.fetch(`${cm}?fieldValidation=Strict`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: `{"metadata":{"name":"t"},"data":{"a":1},"foo":1}`,
    });
    assert.equal(typed.status, 422);
    const st = await typed.json();
    assert.equal(st.reason, "Invalid");
    assert.deepEqual(st.details.causes.map((c: { field: string }) => c.field), ["data[a]"]);
  });
});

Deno.test("server serves Table, YAML, pretty JSON, gzip and dry-run", async () => {
  await withServer(async (t) => {
    const cm = "/api/v1/namespaces/default/configmaps";
    for (let i = 0; i < 3; i++) {
      const r = await t.fetch(cm, {
        method: "POST",
        headers: { "content-type": "application/yaml", accept: "application/yaml" },
        body: `metadata:\n  name: c${i}\ndata:\n  k: "${"x".repeat(60_000)}"\n`,
      });
      assert.equal(r.status, 201);
      assert.equal(r.headers.get("content-type"), "application/yaml");
      assert.match(await r.text(), /^apiVersion: v1\n/m);
    }
    const table = await (await t.fetch(`${cm}?limit=2`, { headers: { accept: TABLE } })).json();
    assert.equal(table.kind, "Table");
    assert.deepEqual(table.columnDefinitions.map((c: { name: string }) => c.name), [
      "Name",
      "Data",
      "Age",
    ]);
    assert.deepEqual(table.rows.map((r: { cells: unknown[] }) => r.cells.slice(0, 2)), [["c0", 1], [
      "c1",
      1,
    ]]);
    assert.ok(table.metadata.resourceVersion);
    assert.ok(table.metadata.continue);
    assert.equal(table.rows[0].object.kind, "PartialObjectMetadata");
    const one = await (await t.fetch(`${cm}/c0?includeObject=None`, { headers: { accept: TABLE } }))
      .json();
    assert.equal(one.rows.length, 1);
    assert.equal(one.rows[0].object, undefined);
    const pretty = await (await t.fetch(`${cm}/c0?pretty=true`)).text();
    assert.match(pretty, /^{\n {2}"/);
    assert.match(pretty, /\n {2}"kind": "ConfigMap",?\n/);
    const gz = await t.fetch(cm, { headers: { "accept-encoding": "gzip" } });
    assert.equal(gz.headers.get("content-encoding"), "gzip");
    // Three, and the root-ca-cert-publisher's kube-root-ca.crt (in every namespace, as in kube).
    assert.equal((await gz.json()).items.length, 4);
    const small = await t.fetch(`${cm}/c0?includeObject=None`, {
      headers: { "accept-encoding": "gzip", accept: TABLE },
    });
    assert.equal(small.headers.get("content-encoding"), null);
    await small.body?.cancel();
    // The list's resourceVersion is the global revision, which background writes elsewhere in
    // the server may move: what dry-run must not change is this collection's objects.
    const snapshot = async () =>
      JSON.stringify(
        ((await (await t.fetch(cm)).json()).items as {
          metadata: { name: string; resourceVersion: string };
        }[]).map((i) => [i.metadata.name, i.metadata.resourceVersion]),
      );
    const before = await snapshot();
    const dry = await t.fetch(`${cm}?dryRun=All`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: `{"metadata":{"name":"dry"}}`,
    });
    assert.equal(dry.status, 201);
    assert.equal((await dry.json()).metadata.resourceVersion, undefined);
    assert.equal((await t.fetch(`${cm}/dry`)).status, 404);
    const del = await t.fetch(`${cm}/c0?dryRun=All`, { method: "DELETE" });
    assert.equal(del.status, 200);
    await del.body?.cancel();
    assert.equal(await snapshot(), before);
    const bare = await t.fetch(`${cm}?dryRun`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: `{"metadata":{"name":"real"}}`,
    });
    assert.equal(bare.status, 201);
    await bare.body?.cancel();
    const na = await t.fetch(cm, { headers: { accept: "text/html" } });
    assert.equal(na.status, 406);
    assert.equal((await na.json()).reason, "NotAcceptable");
    const ue = await t.fetch(cm, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "x",
    });
    assert.equal(ue.status, 415);
    await ue.body?.cancel();
  });
  await withServer(async (t) => {
    const r = await t.fetch("/api/v1/namespaces", { headers: { "accept-encoding": "gzip" } });
    assert.equal(r.headers.get("content-encoding"), null);
    await r.body?.cancel();
  }, ["--feature-gates=APIResponseCompression=false"]);
});

Deno.test("server serves /openapi/v3 with hashes and caching headers", async () => {
  await withServer(async (t) => {
    const root = await (await t.fetch("/openapi/v3")).json();
    const url = root.paths["api/v1"].serverRelativeURL as string;
    assert.match(url, /^\/openapi\/v3\/api\/v1\?hash=[0-9A-F]{128}$/);
    assert.ok(root.paths["apis/coordination.k8s.io/v1"]);
    const res = await t.fetch(url);
    assert.equal(res.headers.get("cache-control"), "public, immutable");
    assert.ok(res.headers.get("expires"));
    const etag = res.headers.get("etag")!;
    const body = new Uint8Array(await res.arrayBuffer());
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-512", body));
    const hex = Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("").toUpperCase();
    assert.equal(url.split("hash=")[1], hex);
    assert.equal(etag, `"${hex}"`);
    const moved = await t.fetch("/openapi/v3/api/v1?hash=ABC", { redirect: "manual" });
    assert.equal(moved.status, 301);
    assert.equal(moved.headers.get("location"), url);
    await moved.body?.cancel();
    const cached = await t.fetch(url, { headers: { "if-none-match": etag } });
    assert.equal(cached.status, 304);
    await cached.body?.cancel();
    const nohash = await t.fetch("/openapi/v3/api/v1");
    assert.equal(nohash.headers.get("cache-control"), "no-cache, private");
    await nohash.body?.cancel();
  });
});

Deno.test({
  name: "kubectl works against the wire formats (create, get, explain, dry-run, apply validation)",
  ignore: skipWithoutKubectl("the kubectl wire format test"),
  async fn() {
    await withServer(async (t) => {
      const kc = kubectlFor(t);
      const run = (...a: string[]) => runKubectl(kc, ["--cache-dir", `${t.dir}/kcache`, ...a]);
      let r = await run("create", "namespace", "demo");
      assert.equal(r.code, 0, r.stderr);
      r = await run("auth", "whoami");
      assert.equal(r.code, 0, r.stderr);
      const multi = [
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: m1\n  namespace: demo\ndata:\n  a: '1'",
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p1\n  namespace: demo\nspec:\n  containers:\n  - name: c\n    image: busybox",
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  labels:\n    node-role.kubernetes.io/worker: ''",
      ].join("\n---\n");
      await Deno.writeTextFile(`${t.dir}/multi.yaml`, multi);
      r = await run("create", "-f", `${t.dir}/multi.yaml`);
      assert.equal(r.code, 0, r.stderr);
      r = await run("get", "pods,cm", "-A");
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /NAMESPACE\s+NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE/);
      assert.match(r.stdout, /demo\s+pod\/p1\s+0\/1\s+Pending\s+0/);
      assert.match(r.stdout, /NAMESPACE\s+NAME\s+DATA\s+AGE/);
      r = await run("get", "nodes", "-o", "wide");
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION\s+INTERNAL-IP/);
      assert.match(r.stdout, /n1\s+Unknown\s+worker/);
      r = await run("explain", "pods.spec.containers");
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /FIELD: containers <\[\]Container>/);
      assert.match(r.stdout, /imagePullPolicy\s+<string>/);
      r = await run("create", "cm", "x", "--dry-run=server", "-o", "yaml");
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /name: x/);
      assert.equal((await run("get", "cm", "x")).code, 1);
      await Deno.writeTextFile(
        `${t.dir}/bad.yaml`,
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bad\n  namespace: demo\nbogus: 1\n",
      );
      r = await run("create", "-f", `${t.dir}/bad.yaml`);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /strict decoding error: unknown field "bogus"/);
      await Deno.writeTextFile(
        `${t.dir}/apply.yaml`,
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n  namespace: demo\ndata:\n  a: '1'\n",
      );
      r = await run("apply", "--server-side", "-f", `${t.dir}/apply.yaml`);
      // Validation passes (no "failed to download openapi" / "error validating data"); the apply
      // patch itself belongs to the patch issue and may still be refused.
      assert.doesNotMatch(r.stderr, /openapi|error validating/i);
    });
  },
});

Deno.test("server encodes watch events as Tables and Protobuf frames", async () => {
  await withServer(async (t) => {
    const cm = "/api/v1/namespaces/default/configmaps";
    const c = await t.fetch(cm, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: `{"metadata":{"name":"w1"},"data":{"a":"b"}}`,
    });
    await c.body?.cancel();
    const table = await t.fetch(`${cm}?watch=1&timeoutSeconds=1`, { headers: { accept: TABLE } });
    assert.equal(table.status, 200);
    const events = (await table.text()).trim().split("\n").map((l) => JSON.parse(l));
    // kube-root-ca.crt (the root-ca-cert-publisher's, in every namespace) comes first.
    const w1 = events.find((e) => e.object.rows[0].cells[0] === "w1");
    assert.equal(w1.type, "ADDED");
    assert.equal(w1.object.kind, "Table");
    assert.deepEqual(w1.object.rows[0].cells.slice(0, 2), ["w1", 1]);
    const pb = await t.fetch(`${cm}?watch=1&timeoutSeconds=1`, {
      headers: { accept: `${PB};stream=watch, application/json` },
    });
    assert.equal(pb.headers.get("content-type"), `${PB};stream=watch`);
    const { WatchFrameDecoder } = await import("../../shared/codec/protobuf/mod.ts");
    const dec = new WatchFrameDecoder();
    const got = dec.push(await bytes(pb));
    const names = got.map((e) => (e.object.metadata as { name: string }).name);
    assert.deepEqual(names, ["kube-root-ca.crt", "w1"]);
    assert.equal(got[1].type, "ADDED");
  });
});
