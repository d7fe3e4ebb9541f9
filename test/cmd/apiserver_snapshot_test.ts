/**
 * `apiserver snapshot save` while the server runs, `snapshot restore` into a new data
 * directory, and a new server on it that serves every object the first one held.
 */
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import { API_ONLY_FLAGS } from "../support/api_only.ts";

const ENTRY = new URL("../../cmd/apiserver.ts", import.meta.url).pathname;

async function apiserver(args: string[]): Promise<{ code: number; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", ENTRY, ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

const OBJECTS: [string, Record<string, unknown>][] = [
  ["/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "snap" } }],
  ["/api/v1/namespaces/snap/configmaps", {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "cm" },
    data: { k: "v" },
  }],
  ["/api/v1/namespaces/snap/secrets", {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "s" },
    stringData: { password: "x" },
  }],
  ["/api/v1/namespaces/snap/services", {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "svc" },
    spec: { ports: [{ port: 80 }], selector: { app: "a" } },
  }],
  ["/apis/apps/v1/namespaces/snap/deployments", {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "d" },
    spec: {
      selector: { matchLabels: { app: "a" } },
      template: {
        metadata: { labels: { app: "a" } },
        spec: { containers: [{ name: "c", image: "busybox" }] },
      },
    },
  }],
];

async function json(ts: TestServer, path: string, init?: RequestInit) {
  const res = await ts.fetch(path, {
    ...init,
    headers: { "Content-Type": "application/json", Accept: "application/json" },
  });
  const body = await res.json();
  return { status: res.status, body };
}

Deno.test("apiserver snapshot save (online) and restore: a new server serves every object", async () => {
  const first = await startTestServer(API_ONLY_FLAGS);
  const tmp = await Deno.makeTempDir({ prefix: "snapshot-test-" });
  const created = new Map<string, { uid: string; resourceVersion: string }>();
  try {
    for (const [path, obj] of OBJECTS) {
      const { status, body } = await json(first, path, {
        method: "POST",
        body: JSON.stringify(obj),
      });
      assert.equal(status, 201, JSON.stringify(body));
      created.set(`${path}/${body.metadata.name}`, body.metadata);
    }
    const file = `${tmp}/snap.db`;
    // A writer keeps creating ConfigMaps one after another while the snapshot is taken.
    let writing = true;
    const writer = (async () => {
      for (let i = 0; writing; i++) {
        const { status } = await json(first, "/api/v1/namespaces/snap/configmaps", {
          method: "POST",
          body: JSON.stringify({ metadata: { name: `w-${i}` }, data: { i: String(i) } }),
        });
        assert.equal(status, 201);
      }
    })();
    const saved = await apiserver(["snapshot", "save", file, `--data-dir=${first.dir}`])
      .finally(() => writing = false);
    await writer;
    assert.equal(saved.code, 0, saved.stderr);
    assert.match(saved.stderr, /^saved .*snap\.db: revision \d+, \d+ objects/m);
    const again = await apiserver(["snapshot", "save", file, `--data-dir=${first.dir}`]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /already exists/);
  } finally {
    await first.close();
  }
  const restoredDir = `${tmp}/restored`;
  const restored = await apiserver([
    "snapshot",
    "restore",
    `${tmp}/snap.db`,
    "--data-dir",
    restoredDir,
  ]);
  assert.equal(restored.code, 0, restored.stderr);
  const twice = await apiserver([
    "snapshot",
    "restore",
    `${tmp}/snap.db`,
    "--data-dir",
    restoredDir,
  ]);
  assert.equal(twice.code, 1);
  assert.match(twice.stderr, /already exists: restore into a new data directory/);
  const second = await startTestServer(API_ONLY_FLAGS, { dir: restoredDir });
  try {
    for (const [key, meta] of created) {
      const { status, body } = await json(second, key);
      assert.equal(status, 200, `${key}: ${JSON.stringify(body)}`);
      assert.equal(body.metadata.uid, meta.uid, key);
      assert.equal(body.metadata.resourceVersion, meta.resourceVersion, key);
    }
    // Consistent: the writer's ConfigMaps in the snapshot are exactly its first n.
    const list = await json(second, "/api/v1/namespaces/snap/configmaps");
    const names: string[] = list.body.items.map((i: { metadata: { name: string } }) =>
      i.metadata.name
    );
    assert.ok(names.includes("cm"));
    const written = names.filter((n) => n.startsWith("w-")).map((n) => Number(n.slice(2)));
    written.sort((a, b) => a - b);
    assert.deepEqual(written, written.map((_, i) => i));
    console.error(`snapshot test: ${written.length} ConfigMaps written during the save restored`);
  } finally {
    await second.close();
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("apiserver snapshot rejects bad arguments and files that are not snapshots", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "snapshot-test-" });
  try {
    const bad = await apiserver(["snapshot", "restore", `${tmp}/x.db`]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /restore needs --data-dir/);
    await Deno.writeTextFile(`${tmp}/junk.db`, "not a database, not at all".repeat(100));
    const junk = await apiserver(["snapshot", "restore", `${tmp}/junk.db`, `--data-dir=${tmp}/d`]);
    assert.equal(junk.code, 1);
    assert.match(junk.stderr, /not a SQLite database/);
    const remote = await apiserver(["snapshot", "save", `${tmp}/r.db`, "--storage-url=ws://x:1"]);
    assert.equal(remote.code, 1);
    assert.match(remote.stderr, /embedded database only/);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
