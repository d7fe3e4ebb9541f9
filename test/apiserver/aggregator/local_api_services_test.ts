import assert from "node:assert/strict";
import { ApiServiceCache } from "../../../apiserver/aggregator/api_service_cache.ts";
import {
  AUTOMANAGED_LABEL,
  LocalApiServices,
} from "../../../apiserver/aggregator/local_api_services.ts";
import type { KindDef } from "../../../apiserver/registry/generic/kind.ts";
import { ChangeFeed } from "../../../apiserver/watch/change_feed.ts";
import { withRegistryHarness } from "../../support/registry_harness.ts";

const CRONTABS: KindDef = {
  group: "stable.example.com",
  version: "v1",
  kind: "CronTab",
  plural: "crontabs",
  singular: "crontab",
  namespaced: true,
  strategy: { validate: () => [] },
};

async function until<T>(fn: () => T | undefined): Promise<T> {
  for (let i = 0; i < 300; i++) {
    const v = fn();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("timed out");
}

Deno.test("LocalApiServices keeps one local APIService per served group version", async () => {
  await withRegistryHarness("local_apiservices_test_", async ({ registry, storage, store }) => {
    const feed = new ChangeFeed({ storage, remote: false, historyWindowMs: 60_000 });
    await feed.start();
    const apiServices = store("apiregistration.k8s.io", "v1", "apiservices");
    const cache = new ApiServiceCache(apiServices.prefix);
    await cache.start(feed);
    const local = new LocalApiServices({ registry, cache });
    try {
      await local.start();
      const apps = await apiServices.get("", "v1.apps");
      assert.deepEqual(apps.spec, {
        group: "apps",
        version: "v1",
        groupPriorityMinimum: 17800,
        versionPriority: 15,
      });
      assert.equal(apps.metadata.labels?.[AUTOMANAGED_LABEL], "onstart");
      const core = cache.get("v1.")!;
      assert.deepEqual(core.object.spec, {
        group: "",
        version: "v1",
        groupPriorityMinimum: 18000,
        versionPriority: 1,
      });
      assert.ok(core.available);

      registry.add(CRONTABS);
      const crontabs = await until(() => cache.get("v1.stable.example.com"));
      assert.equal(crontabs.groupPriorityMinimum, 1000);
      assert.equal(crontabs.versionPriority, 100);
      assert.equal(crontabs.object.metadata?.labels?.[AUTOMANAGED_LABEL], "true");
      await until(() => cache.get("v1.stable.example.com")?.available || undefined);

      await apiServices.create("", {
        metadata: { name: "v1.other.example.com" },
        spec: {
          group: "other.example.com",
          version: "v1",
          groupPriorityMinimum: 100,
          versionPriority: 1,
        },
      });
      const other = await until(() =>
        cache.get("v1.other.example.com")?.available ? true : undefined
      );
      assert.ok(other);
      const status = (await apiServices.get("", "v1.other.example.com")).status as {
        conditions: Record<string, string>[];
      };
      assert.deepEqual(
        [status.conditions[0].reason, status.conditions[0].message],
        ["Local", "Local APIServices are always available"],
      );
      assert.equal(cache.get("v1.other.example.com")?.object.metadata?.labels, undefined);
    } finally {
      await local.stop();
      cache.stop();
      await feed.stop();
    }
  });
});
