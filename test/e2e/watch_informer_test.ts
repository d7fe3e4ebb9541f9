/**
 * An informer from @kubernetes/client-node (list, then watch) follows creates, updates and
 * deletes and ends with exactly the server's state, also across a forced 410 (history compacted
 * past the informer's version, watchers closed by the server).
 */
import assert from "node:assert/strict";
import { CoreV1Api, KubeConfig, makeInformer, type V1ConfigMap } from "@kubernetes/client-node";
import { startTestServer } from "../support/test_server.ts";
import { eventually } from "../support/eventually.ts";

const NS = "default";

Deno.test({
  name: "a client-node informer ends with exactly the server's state, also across a 410",
  // The client's HTTP agent keeps sockets alive past a test's end.
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const s = await startTestServer([], {});
    const kc = new KubeConfig();
    kc.loadFromFile(s.server.kubeconfigPath);
    const core = kc.makeApiClient(CoreV1Api);
    let lists = 0;
    let gone = 0;
    const informer = makeInformer<V1ConfigMap>(
      kc,
      `/api/v1/namespaces/${NS}/configmaps`,
      () => {
        lists++;
        return core.listNamespacedConfigMap({ namespace: NS });
      },
    );
    informer.on("error", (err: unknown) => {
      if (String((err as { statusCode?: number })?.statusCode ?? err).includes("410")) gone++;
      // client-node stops on errors; start again (it lists first).
      setTimeout(() => informer.start().catch(() => {}), 10);
    });
    const serverState = async () => {
      const l = await core.listNamespacedConfigMap({ namespace: NS });
      return l.items.map((c) => `${c.metadata!.name}=${c.data?.v ?? ""}`).sort();
    };
    const cachedState = () =>
      informer.list(NS).map((c) => `${c.metadata!.name}=${c.data?.v ?? ""}`).sort();
    const same = async () => JSON.stringify(await serverState()) === JSON.stringify(cachedState());
    try {
      await informer.start();
      for (let i = 0; i < 20; i++) {
        await core.createNamespacedConfigMap({
          namespace: NS,
          body: { metadata: { name: `inf-${i}` }, data: { v: "0" } },
        });
      }
      for (let i = 0; i < 20; i += 2) {
        await core.replaceNamespacedConfigMap({
          name: `inf-${i}`,
          namespace: NS,
          body: { metadata: { name: `inf-${i}` }, data: { v: "1" } },
        });
      }
      for (let i = 0; i < 20; i += 3) {
        await core.deleteNamespacedConfigMap({ name: `inf-${i}`, namespace: NS });
      }
      await eventually("informer state equal to the server's", same);

      // Force a 410: history moves past the informer's last version (a write elsewhere, then
      // compaction), and the server drops the watchers; the informer resumes, gets 410 and lists.
      const cache = s.server.watchFeed.caches.get("/registry/core/configmaps/")!;
      const listsBefore = lists;
      await core.createNamespacedSecret({
        namespace: NS,
        body: { metadata: { name: "elsewhere" }, stringData: { k: "v" } },
      });
      const current = await s.server.storage.currentRevision();
      await s.server.storage.compact(current);
      s.server.watchFeed.requestPoll();
      await eventually("compaction noticed", () => cache.historyStart >= current);
      cache.closeAll("reset");
      await eventually("the informer listing again after a 410", () => lists > listsBefore);
      await core.createNamespacedConfigMap({
        namespace: NS,
        body: { metadata: { name: "after-410" }, data: { v: "x" } },
      });
      await eventually("informer state after the 410", same);
      assert.ok(cachedState().includes("after-410=x"));
      console.log(`lists: ${lists}, 410 errors seen by the informer: ${gone}`);
    } finally {
      await informer.stop();
      await s.close();
    }
  },
});
