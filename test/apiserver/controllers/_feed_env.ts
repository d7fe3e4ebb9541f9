/** A registry over real storage with a started change feed, for controller unit tests. */
import { ChangeFeed } from "../../../apiserver/watch/change_feed.ts";
import { openRegistryHarness, type RegistryHarness } from "../../support/registry_harness.ts";
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { ServiceAllocator } from "../../../apiserver/registry/core/services/allocator.ts";
import { serviceKind } from "../../../apiserver/registry/core/services/strategy.ts";
import { parseCIDR, parsePortRange } from "../../../apiserver/registry/core/services/ip_range.ts";

/** The harness with its feed. */
export interface FeedEnv extends RegistryHarness {
  feed: ChangeFeed;
}

/** Runs `fn` with a registry harness and a started change feed (log polled only on gaps). */
export async function withFeedEnv(prefix: string, fn: (env: FeedEnv) => Promise<void>) {
  const h = await openRegistryHarness(prefix);
  h.registry.add(serviceKind(
    new ServiceAllocator({
      storage: h.storage,
      clusterIPRange: parseCIDR("10.96.0.0/12"),
      nodePortRange: parsePortRange("30000-32767"),
    }),
  ));
  const feed = new ChangeFeed({
    storage: h.storage,
    remote: false,
    historyWindowMs: 60_000,
    tuning: { pollIntervalMs: 3_600_000 },
  });
  await feed.start();
  try {
    await h.store("", "v1", "namespaces").create("", { metadata: { name: "default" } });
    await fn({ ...h, feed });
  } finally {
    await feed.stop();
    await h.close();
  }
}

/** Writes a pod's status as a kubelet would: Running, Ready (or not), with an IP. */
export async function markPod(
  env: FeedEnv,
  pod: KubeObject,
  ready: boolean,
  opts: { ip?: string; node?: string; at?: string } = {},
): Promise<void> {
  const pods = env.store("", "v1", "pods");
  const at = opts.at ?? new Date().toISOString().replace(/\.\d+Z$/, "Z");
  await pods.guaranteedUpdate(
    pod.metadata.namespace!,
    pod.metadata.name!,
    (cur) => {
      if (!cur) return undefined;
      cur.status = {
        phase: "Running",
        podIP: opts.ip ?? "10.0.0.1",
        podIPs: [{ ip: opts.ip ?? "10.0.0.1" }],
        conditions: [{ type: "Ready", status: ready ? "True" : "False", lastTransitionTime: at }],
      };
      return cur;
    },
    {},
    { subresource: "status" },
  );
}
