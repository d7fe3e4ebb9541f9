import assert from "node:assert/strict";
import { LibsqlStorage } from "../../../apiserver/storage/libsql/libsql_storage.ts";
import { ChangeFeed } from "../../../apiserver/watch/change_feed.ts";
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";

const codec = (kind: string) => ({
  apiVersion: "v1",
  kind,
  fieldsOf: (obj: KubeObject) => ({ "metadata.name": obj.metadata.name ?? "" }),
});

Deno.test("ChangeFeed applies each commit to the caches whose prefix holds its key", async () => {
  const dir = await Deno.makeTempDir({ prefix: "change_feed_" });
  const storage = await LibsqlStorage.open({
    url: `file:${dir}/state.db`,
    maintenanceIntervalMs: 0,
  });
  const feed = new ChangeFeed({ storage, remote: false, historyWindowMs: 60_000 });
  try {
    const prefixes = [
      "/registry/apps/deployments/",
      "/registry/apps/daemonsets/",
      "/registry/configmaps/",
      "/registry/",
    ];
    const caches = prefixes.map((p) => feed.cacheFor(p, codec(p)));
    await feed.start();
    const keys = [
      "/registry/apps/deployments/ns/a",
      "/registry/apps/daemonsets/ns/b",
      "/registry/configmaps/ns/c",
      "/registry/configmapsx/ns/d",
      "/other/e",
    ];
    for (const key of keys) {
      await storage.create(key, JSON.stringify({ metadata: { name: key.split("/").pop() } }));
    }
    assert.ok(await feed.waitFor(keys.length));
    const held = caches.map((c) => keys.filter((k) => c.get(k) !== undefined));
    assert.deepEqual(held, [
      ["/registry/apps/deployments/ns/a"],
      ["/registry/apps/daemonsets/ns/b"],
      ["/registry/configmaps/ns/c"],
      keys.slice(0, 4),
    ]);
  } finally {
    await feed.stop();
    await storage.close();
    await Deno.remove(dir, { recursive: true });
  }
});
