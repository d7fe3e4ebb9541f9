import assert from "node:assert/strict";
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { FakeClock } from "../../../nodeagent/clock/fake_clock.ts";
import { LibsqlStorage } from "../../../apiserver/storage/libsql/libsql_storage.ts";
import { RestClient } from "../../../shared/client/rest_client.ts";
import { WatchPodSource } from "../../../nodeagent/pods/watch_pod_source.ts";
import { startTestServer, type TestServer } from "../../support/test_server.ts";
import { eventually } from "../_agent_process.ts";

const PODS = { version: "v1", resource: "pods", namespace: "default" };

function pod(name: string, node: string): KubeObject {
  return {
    metadata: { name, namespace: "default" },
    spec: { nodeName: node, containers: [{ name: "c", image: "busybox" }] },
  } as KubeObject;
}

/** The names the source reported last. */
function follow(source: WatchPodSource): () => string[] {
  let names: string[] = [];
  source.start((pods) => names = pods.map((p) => p.metadata.name!).sort());
  return () => names;
}

async function sees(current: () => string[], want: string[]): Promise<void> {
  await eventually(`pods ${want.join(",")}`, () => {
    return Promise.resolve(JSON.stringify(current()) === JSON.stringify(want) || undefined);
  }, 20_000);
}

Deno.test("WatchPodSource follows the node's pods by list then watch", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "watch-pods-" });
  let ts: TestServer = await startTestServer([], { dir: `${dir}/api`, keepDir: true });
  const port = ts.server.port;
  // Its own client: the test server's is closed with the server.
  const client = await RestClient.fromKubeconfig(ts.server.kubeconfigPath);
  await client.create(PODS, pod("a", "n1"));
  await client.create(PODS, pod("other", "n2"));
  // Retries wait on this clock, so the source stays away while the test prepares the server.
  const clock = new FakeClock();
  const source = new WatchPodSource({
    client,
    nodeName: "n1",
    clock,
    watchTimeoutSeconds: 1,
    retryBaseMs: 100,
  });
  const current = follow(source);
  let seenRv = "";
  try {
    await t.step("lists the node's pods only", async () => {
      await sees(current, ["a"]);
      assert.equal(source.stats.lists, 1);
    });

    await t.step("adds and removes pods from watch events", async () => {
      await client.create(PODS, pod("b", "n1"));
      await client.create(PODS, pod("c", "n2"));
      await sees(current, ["a", "b"]);
      await client.delete({ ...PODS, name: "a" }, { gracePeriodSeconds: 0 });
      await sees(current, ["b"]);
    });

    await t.step("resumes from the last resourceVersion when a watch ends", async () => {
      const watches = source.stats.watches;
      await eventually("two more watches", () => {
        return Promise.resolve(source.stats.watches >= watches + 2 || undefined);
      }, 20_000);
      seenRv = (await client.create(PODS, pod("d", "n1"))).metadata.resourceVersion!;
      await sees(current, ["b", "d"]);
      assert.equal(source.stats.lists, 1, "no relist");
    });

    await t.step("lists again when its resourceVersion was compacted away", async () => {
      await ts.close();
      await eventually("the source waiting to retry", () => {
        return Promise.resolve(clock.pending > 0 || undefined);
      }, 20_000);
      ts = await startTestServer([`--secure-port=${port}`, "--history-window=1s"], {
        dir: `${dir}/api`,
        keepDir: true,
      });
      // Writes the source does not see, then compaction past them.
      const other = await client.create(PODS, pod("e", "n2"));
      await client.create(PODS, pod("f", "n1"));
      const storage = ts.server.storage;
      assert.ok(storage instanceof LibsqlStorage);
      await eventually("compaction past the writes", async () => {
        await storage.maintain();
        const compacted = await storage.compactedRevision();
        return compacted >= Number(other.metadata.resourceVersion) || undefined;
      }, 20_000);
      await eventually("the watch cache to drop that history", async () => {
        const ac = new AbortController();
        try {
          await client.watch(PODS, { resourceVersion: seenRv, timeoutSeconds: 1 }, (ev) => {
            if (ev.type === "ERROR") throw new Error(JSON.stringify(ev.object));
            ac.abort();
          }, ac.signal);
        } catch (err) {
          return /Expired|410|too old/.test(String(err)) || undefined;
        }
        return undefined;
      }, 20_000);
      clock.advance(60_000);
      await sees(current, ["b", "d", "f"]);
      assert.equal(source.stats.lists, 2, JSON.stringify(source.stats));
      assert.equal(source.stats.gone, 1, JSON.stringify(source.stats));
    });
  } finally {
    await source.stop();
    client.close();
    await ts.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
