import assert from "node:assert/strict";
import { etcdAvailable, etcdPutRate, startEtcd } from "../../../scripts/bench/etcd_anchor.ts";

const hasEtcd = await etcdAvailable();
if (!hasEtcd) console.log("etcd is not installed: skipping the etcd anchor test");

Deno.test({
  name: "etcdPutRate() puts every key into a started etcd",
  ignore: !hasEtcd,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "etcd-anchor-test-" });
    const etcd = await startEtcd(dir);
    try {
      const result = await etcdPutRate({
        url: etcd.url,
        puts: 40,
        concurrency: 4,
        valueBytes: 256,
        capMs: 120_000,
        tag: "test",
      });
      assert.equal(result.failed, 0, result.firstError ?? "");
      assert.equal(result.puts, 40);
      assert.ok(result.putsPerSecond > 0);
      const res = await fetch(`${etcd.url}/v3/kv/range`, {
        method: "POST",
        body: JSON.stringify({
          key: btoa("/registry/bench/test/"),
          range_end: btoa("/registry/bench/test0"),
          count_only: true,
        }),
      });
      assert.equal((await res.json()).count, "40");
    } finally {
      await etcd.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
