/** computeQuotaStatus(): what the resource quota controller writes to a quota's status. */
import assert from "node:assert/strict";
import { computeQuotaStatus } from "../../../apiserver/controllers/quota_usage.ts";
import { withRegistryHarness } from "../../support/registry_harness.ts";

const pod = (
  name: string,
  extra: Record<string, unknown> = {},
  resources?: Record<string, unknown>,
) => ({
  metadata: { name },
  spec: {
    containers: [{ name: "c", image: "nginx", ...(resources ? { resources } : {}) }],
    ...extra,
  },
});

Deno.test("computeQuotaStatus() counts the objects a quota selects, by scope", async () => {
  await withRegistryHarness("quota_usage_", async (h) => {
    const pods = h.store("", "v1", "pods");
    await pods.create("ns", pod("best-effort"));
    await pods.create("ns", pod("burstable", {}, { requests: { cpu: "250m", memory: "64Mi" } }));
    await pods.create("ns", pod("job", { activeDeadlineSeconds: 60, restartPolicy: "Never" }));
    await pods.create("other", pod("elsewhere"));
    await h.store("", "v1", "configmaps").create("ns", { metadata: { name: "cm" } });
    await h.store("apps", "v1", "deployments").create("ns", {
      metadata: { name: "d" },
      spec: {
        selector: { matchLabels: { a: "b" } },
        template: { metadata: { labels: { a: "b" } }, spec: pod("x").spec },
      },
    });
    const now = Date.now();
    const all = await computeQuotaStatus(h.registry, "ns", {
      metadata: { name: "q" },
      spec: {
        hard: {
          pods: "10",
          "requests.cpu": "2",
          "requests.memory": "1Gi",
          "count/configmaps": "5",
          "count/deployments.apps": "3",
          "count/widgets.example.com": "1",
        },
      },
    }, now);
    assert.deepEqual(all, {
      hard: {
        "count/configmaps": "5",
        "count/deployments.apps": "3",
        "count/widgets.example.com": "1",
        pods: "10",
        "requests.cpu": "2",
        "requests.memory": "1Gi",
      },
      used: {
        "count/configmaps": "1",
        "count/deployments.apps": "1",
        pods: "3",
        "requests.cpu": "250m",
        "requests.memory": "64Mi",
      },
    });
    const scoped = (scopes: string[]) =>
      computeQuotaStatus(h.registry, "ns", {
        metadata: { name: "s" },
        spec: { hard: { pods: "10", configmaps: "4" }, scopes },
      }, now);
    assert.deepEqual((await scoped(["BestEffort"])).used, { pods: "2", configmaps: "0" });
    assert.deepEqual((await scoped(["NotBestEffort"])).used, { pods: "1", configmaps: "0" });
    assert.deepEqual((await scoped(["Terminating"])).used, { pods: "1", configmaps: "0" });
    assert.deepEqual((await scoped(["NotTerminating", "BestEffort"])).used, {
      pods: "1",
      configmaps: "0",
    });
  });
});
