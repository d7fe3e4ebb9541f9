/**
 * A seeded, bounded fuzzer over the resource API: mutated JSON, YAML and Protobuf bodies through
 * create, update and every patch type, and random paths and query strings. Invariants: no 5xx,
 * every error is a Status, a rejected write leaves its object byte-identical, no unhandled
 * rejection, and `/readyz` keeps answering. The seed is printed with any failure; replay one
 * with `FUZZ_SEED=<n>`.
 */
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../support/test_server.ts";

const ITERATIONS = Number(Deno.env.get("FUZZ_ITERATIONS") ?? 600);
const VERBOSE = Deno.env.get("FUZZ_VERBOSE") === "1";

/** A small seeded generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];

/** The objects written to, each at a collection path. */
const TARGETS = [
  {
    path: "/api/v1/namespaces/default/configmaps",
    object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "t" }, data: { a: "1" } },
  },
  {
    path: "/api/v1/namespaces/default/pods",
    object: {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "t", labels: { app: "x" } },
      spec: { containers: [{ name: "c", image: "busybox", ports: [{ containerPort: 80 }] }] },
    },
  },
  {
    path: "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles",
    object: {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: { name: "t" },
      rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }],
    },
  },
  {
    path: "/apis/coordination.k8s.io/v1/namespaces/default/leases",
    object: {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: "t" },
      spec: { holderIdentity: "h", leaseDurationSeconds: 10 },
    },
  },
] as const;

const WEIRD_VALUES: unknown[] = [
  null,
  0,
  -1,
  1.5,
  1e308,
  -9007199254740993,
  "",
  "x",
  "ключ ✓ 😀",
  "\u0000\r\n",
  "a".repeat(300),
  true,
  [],
  [null],
  {},
  { "": 1 },
  { "ключ": "x" },
  [[[[["deep"]]]]],
];

/** Replaces, deletes or adds one member somewhere in `value` (a JSON copy). */
function mutate(r: Rand, value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== "object" || depth > 6 || r() < 0.25) {
    return r() < 0.8 ? pick(r, WEIRD_VALUES) : value;
  }
  if (Array.isArray(value)) {
    const out = [...value];
    if (out.length === 0 || r() < 0.2) out.push(pick(r, WEIRD_VALUES));
    else {
      const i = Math.floor(r() * out.length);
      out[i] = mutate(r, out[i], depth + 1);
    }
    return out;
  }
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  const keys = Object.keys(out);
  const roll = r();
  if (keys.length === 0 || roll < 0.15) {
    out[pick(r, ["x", "ключ", "status", "metadata", ""])] = pick(r, WEIRD_VALUES);
  } else if (roll < 0.3) delete out[pick(r, keys)];
  else {
    const k = pick(r, keys);
    out[k] = mutate(r, out[k], depth + 1);
  }
  return out;
}

/** Damages text a little: truncates it, or flips, inserts or removes a character. */
function damage(r: Rand, text: string): string {
  const i = Math.floor(r() * (text.length + 1));
  switch (Math.floor(r() * 4)) {
    case 0:
      return text.slice(0, i);
    case 1:
      return text.slice(0, i) + pick(r, ["{", "}", "[", '"', ":", ",", "\\", "\u0000", "\n- "]) +
        text.slice(i);
    case 2:
      return text.slice(0, i) + text.slice(i + 1);
    default:
      return text;
  }
}

function toYaml(value: unknown): string {
  // JSON is YAML; an indented block form exercises the block parser too.
  return JSON.stringify(value, null, 2).replace(/"(\w+)": /g, "$1: ");
}

interface FuzzRequest {
  method: string;
  path: string;
  contentType?: string;
  body?: string | Uint8Array<ArrayBuffer>;
}

function randomBytes(r: Rand, n: number): Uint8Array<ArrayBuffer> {
  return Uint8Array.from({ length: n }, () => Math.floor(r() * 256));
}

/** A write to one target: create, update or a patch, with a mutated body. */
function writeRequest(r: Rand, target: (typeof TARGETS)[number], current: unknown): FuzzRequest {
  const named = `${target.path}/t`;
  const kind = Math.floor(r() * 7);
  const base = kind === 0 ? target.object : current;
  let value = mutate(r, structuredClone(base));
  if (kind === 1 && value && typeof value === "object" && r() < 0.5) {
    delete (value as { metadata?: { resourceVersion?: unknown } }).metadata?.resourceVersion;
  }
  if (kind >= 2 && r() < 0.5) value = mutate(r, value);
  let text = kind === 5 ? toYaml(value) : JSON.stringify(value);
  if (r() < 0.3) text = damage(r, text);
  switch (kind) {
    case 0:
      return {
        method: "POST",
        path: target.path,
        contentType: pick(r, ["application/json", "application/yaml"]),
        body: r() < 0.5 ? text : toYaml(value),
      };
    case 1:
      return { method: "PUT", path: named, contentType: "application/json", body: text };
    case 2:
      return {
        method: "PATCH",
        path: named,
        contentType: "application/merge-patch+json",
        body: text,
      };
    case 3:
      return {
        method: "PATCH",
        path: named,
        contentType: "application/strategic-merge-patch+json",
        body: text,
      };
    case 4: {
      const op = pick(r, ["add", "replace", "remove", "copy", "move", "test"]);
      const p = pick(r, [
        "/metadata/labels/x",
        "/data/a",
        "/spec",
        "/rules/0",
        "/metadata",
        "/x/y",
        "",
        "/spec/containers/-",
      ]);
      const ops = [{
        op,
        path: p,
        from: pick(r, ["/metadata/name", "/data", "/nope"]),
        value: mutate(r, pick(r, WEIRD_VALUES)),
      }];
      return {
        method: "PATCH",
        path: named,
        contentType: "application/json-patch+json",
        body: r() < 0.3 ? damage(r, JSON.stringify(ops)) : JSON.stringify(ops),
      };
    }
    case 5:
      return {
        method: "PATCH",
        path: `${named}?fieldManager=fuzz${r() < 0.5 ? "&force=true" : ""}`,
        contentType: "application/apply-patch+yaml",
        body: text,
      };
    default: {
      const prefix = r() < 0.5 ? new Uint8Array([0x6b, 0x38, 0x73, 0x00]) : new Uint8Array();
      const body = new Uint8Array([...prefix, ...randomBytes(r, Math.floor(r() * 64))]);
      return {
        method: pick(r, ["POST", "PUT"]),
        path: kind % 2 ? target.path : named,
        contentType: "application/vnd.kubernetes.protobuf",
        body,
      };
    }
  }
}

/** A read with a random path and query. */
function readRequest(r: Rand, target: (typeof TARGETS)[number]): FuzzRequest {
  const queries = [
    "limit=" + pick(r, ["-1", "0", "1", "abc", "1e3", "99999999999999999999"]),
    "continue=" +
    pick(r, ["", "abc", "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJ4In0", "%ff"]),
    "resourceVersion=" + pick(r, ["", "0", "1", "-1", "abc", "18446744073709551616"]),
    "resourceVersionMatch=" + pick(r, ["NotOlderThan", "Exact", "bogus"]),
    "labelSelector=" +
    encodeURIComponent(pick(r, ["a=b", "a in (x,y)", "!a", "a==", "((", "a notin ()", "ключ=x"])),
    "fieldSelector=" +
    encodeURIComponent(pick(r, ["metadata.name=t", "spec.nodeName=x", "bogus=1", "=", "a!=b,,"])),
    // Any other value is true, as in Kubernetes; a watch ends only by its timeout.
    "watch=" + pick(r, ["false", "0", "bogus&timeoutSeconds=1"]),
    "pretty=" + pick(r, ["true", "x"]),
    "fieldManager=" + pick(r, ["", "a".repeat(200), "ok"]),
    "dryRun=" + pick(r, ["All", "bogus"]),
    "includeObject=" + pick(r, ["None", "Object", "bogus"]),
  ];
  const q = Array.from({ length: Math.floor(r() * 4) }, () => pick(r, queries)).join("&");
  const path = pick(r, [
    target.path,
    `${target.path}/t`,
    `${target.path}/t/status`,
    `${target.path}/%2e%2e`,
    `${target.path}/t/bogus`,
    "/api/v1/namespaces/../configmaps",
    "/api/v1/namespaces/ /configmaps",
    "/apis/bogus.group/v1/things",
    "/api/v2/pods",
    "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles/t/x/y/z",
    "/openapi/v3/api/v1",
    "/api/v1/namespaces/default/configmaps/%ff",
  ]);
  return {
    method: pick(r, ["GET", "GET", "HEAD", "DELETE", "OPTIONS"]),
    path: q ? `${path}?${q}` : path,
  };
}

async function send(s: TestServer, req: FuzzRequest): Promise<{ status: number; text: string }> {
  if (VERBOSE) {
    console.log(
      req.method,
      req.path,
      req.contentType ?? "",
      typeof req.body === "string" ? req.body.slice(0, 200) : "",
    );
  }
  const headers: Record<string, string> = {};
  if (req.contentType) headers["content-type"] = req.contentType;
  const res = await s.fetch(req.path, { method: req.method, headers, body: req.body });
  return { status: res.status, text: await res.text() };
}

async function fetchRaw(s: TestServer, path: string): Promise<string> {
  const res = await s.fetch(path);
  const text = await res.text();
  return `${res.status} ${text}`;
}

Deno.test("the API answers fuzzed requests with 4xx, never 5xx, and rejected writes change nothing", async () => {
  const seed = Number(Deno.env.get("FUZZ_SEED") ?? Math.floor(Math.random() * 2 ** 31));
  const r = random(seed);
  const unhandled: unknown[] = [];
  const onUnhandled = (e: PromiseRejectionEvent) => {
    unhandled.push(e.reason);
    e.preventDefault();
  };
  globalThis.addEventListener("unhandledrejection", onUnhandled);
  const s = await startTestServer();
  let last = "";
  try {
    for (const t of TARGETS) {
      const res = await s.fetch(t.path, {
        method: "POST",
        body: JSON.stringify(t.object),
        headers: { "content-type": "application/json" },
      });
      assert.equal(res.status, 201, await res.text());
    }
    for (let i = 0; i < ITERATIONS; i++) {
      const target = pick(r, TARGETS);
      const named = `${target.path}/t`;
      if (r() < 0.7) {
        const before = await fetchRaw(s, named);
        const current = before.startsWith("200 ") ? JSON.parse(before.slice(4)) : target.object;
        const req = writeRequest(r, target, current);
        last = `${req.method} ${req.path} ${req.contentType} ${
          typeof req.body === "string" ? req.body.slice(0, 300) : "<bytes>"
        }`;
        const res = await send(s, req);
        assert.ok(res.status < 500, `${res.status} ${res.text}`);
        if (res.status >= 400) {
          assert.equal(JSON.parse(res.text).kind, "Status", res.text);
          const after = await fetchRaw(s, named);
          assert.equal(after, before, "a rejected write changed the object");
        }
      } else {
        const req = readRequest(r, target);
        last = `${req.method} ${req.path}`;
        const res = await send(s, req);
        assert.ok(res.status < 500, `${res.status} ${res.text}`);
        if (res.status >= 400 && req.method !== "HEAD" && req.path.startsWith("/api")) {
          assert.equal(JSON.parse(res.text).kind, "Status", res.text);
        }
      }
      if (i % 50 === 0) {
        const ready = await s.fetch("/readyz", { signal: AbortSignal.timeout(10_000) });
        assert.equal(ready.status, 200);
        await ready.body?.cancel();
      }
    }
    assert.deepEqual(unhandled, []);
  } catch (err) {
    throw new Error(
      `fuzz failed with FUZZ_SEED=${seed} at: ${last}\n${(err as Error).message}`,
      { cause: err },
    );
  } finally {
    globalThis.removeEventListener("unhandledrejection", onUnhandled);
    await s.close();
  }
});
