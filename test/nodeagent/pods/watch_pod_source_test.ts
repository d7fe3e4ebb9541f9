import assert from "node:assert/strict";
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { FakeClock } from "../../../nodeagent/clock/fake_clock.ts";
import { LibsqlStorage } from "../../../apiserver/storage/libsql/libsql_storage.ts";
import { RestClient } from "../../../shared/client/rest_client.ts";
import { WatchPodSource } from "../../../nodeagent/pods/watch_pod_source.ts";
import { PollingPodSource } from "../../../nodeagent/pods/pod_source.ts";
import { startTestServer, type TestServer } from "../../support/test_server.ts";
import { AGENT_POLL } from "../_agent_process.ts";
import { eventually } from "../../support/eventually.ts";

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
  }, AGENT_POLL);
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
      }, AGENT_POLL);
      seenRv = (await client.create(PODS, pod("d", "n1"))).metadata.resourceVersion!;
      await sees(current, ["b", "d"]);
      assert.equal(source.stats.lists, 1, "no relist");
    });

    await t.step("lists again when its resourceVersion was compacted away", async () => {
      await ts.close();
      await eventually("the source waiting to retry", () => {
        return Promise.resolve(clock.pending > 0 || undefined);
      }, AGENT_POLL);
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
      }, AGENT_POLL);
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
      }, AGENT_POLL);
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

/**
 * A plain-HTTP front for the real API server that answers every watch request with `code`,
 * as a server (or a proxy in front of one) that serves no watches does.
 */
function noWatchFront(ts: TestServer, code: () => number): Deno.HttpServer<Deno.NetAddr> {
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const url = new URL(req.url);
    if (url.searchParams.get("watch") === "true" || url.searchParams.get("watch") === "1") {
      const c = code();
      return Response.json({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: `watch is not served here (${c})`,
        reason: c === 404 ? "NotFound" : c === 405 ? "MethodNotAllowed" : "Unknown",
        code: c,
      }, { status: c });
    }
    const res = await ts.fetch(url.pathname + url.search, { method: req.method });
    return new Response(await res.arrayBuffer(), {
      status: res.status,
      headers: { "content-type": res.headers.get("content-type") ?? "application/json" },
    });
  });
}

Deno.test("WatchPodSource falls back to polling when the first watch is 404, 405 or 501", async (t) => {
  const ts = await startTestServer();
  let code = 404;
  const front = noWatchFront(ts, () => code);
  const client = new RestClient({ server: `http://127.0.0.1:${front.addr.port}` });
  try {
    await ts.client.create(PODS, pod("first", "n1"));
    let n = 0;
    for (const c of [404, 405, 501]) {
      await t.step(`${c}: the polling source takes over for good`, async () => {
        code = c;
        const clock = new FakeClock();
        let fallbacks = 0;
        let polling: PollingPodSource | undefined;
        const source = new WatchPodSource({
          client,
          nodeName: "n1",
          clock,
          watchTimeoutSeconds: 5,
          fallback: () => {
            fallbacks++;
            polling = new PollingPodSource({ client, nodeName: "n1", clock, intervalMs: 1_000 });
            return polling;
          },
        });
        const current = follow(source);
        try {
          const made = () => ["first", ...Array.from({ length: n }, (_, i) => `later-${i}`)];
          await eventually(
            "the fallback",
            () => Promise.resolve(fallbacks > 0 || undefined),
            AGENT_POLL,
          );
          await sees(current, made());
          assert.equal(source.stats.watches, 1);
          assert.equal(source.stats.lists, 1);
          // New pods arrive by polling, on the polling source's interval.
          const name = `later-${n++}`;
          await ts.client.create(PODS, pod(name, "n1"));
          await eventually("the poller to wait for its interval", () => {
            return Promise.resolve(clock.pending > 0 || undefined);
          }, AGENT_POLL);
          clock.advance(1_000);
          await sees(current, made());
          assert.equal(fallbacks, 1);
          assert.equal(source.stats.watches, 1, "no further watch");
        } finally {
          await source.stop();
        }
        assert.ok(polling);
      });
    }

    await t.step("500: no fallback, the watch is retried", async () => {
      code = 500;
      const clock = new FakeClock();
      let fallbacks = 0;
      const source = new WatchPodSource({
        client,
        nodeName: "n1",
        clock,
        watchTimeoutSeconds: 5,
        retryBaseMs: 100,
        fallback: () => {
          fallbacks++;
          return new PollingPodSource({ client, nodeName: "n1", clock });
        },
      });
      follow(source);
      try {
        await eventually(
          "a retry wait",
          () => Promise.resolve(clock.pending > 0 || undefined),
          AGENT_POLL,
        );
        clock.advance(100);
        await eventually("a second watch", () => {
          return Promise.resolve(source.stats.watches >= 2 || undefined);
        }, AGENT_POLL);
        assert.equal(fallbacks, 0);
      } finally {
        await source.stop();
      }
    });
  } finally {
    client.close();
    await front.shutdown();
    await ts.close();
  }
});
