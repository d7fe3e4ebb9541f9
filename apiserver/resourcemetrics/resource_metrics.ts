/**
 * The resource metrics API assembled, as metrics-server would serve it but inside the API
 * server: the scraper of the node agents' `/metrics/resource`, its storage, and the
 * `metrics.k8s.io/v1beta1` kinds NodeMetrics and PodMetrics added to the registry (their local
 * APIService `v1beta1.metrics.k8s.io` follows from the registry, so discovery lists the group
 * and `kubectl top` finds it).
 *
 * The agents are reached through the server's one {@link NodeConnections} (its client
 * certificate and its verification of the agents' serving certificates).
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import type { Logger } from "../../shared/log/mod.ts";
import { type Clock, systemClock } from "../registry/generic/clock.ts";
import { nodeMetricsKind } from "../registry/metrics/nodes/strategy.ts";
import { podMetricsKind } from "../registry/metrics/pods/strategy.ts";
import type { ResourceRegistry } from "../registry/resource_registry.ts";
import type { NodeConnections } from "../kubelet/node_connections.ts";
import type { ResourceMetricsOptions } from "./metrics_options.ts";
import { MetricsScraper } from "./metrics_scraper.ts";
import { MetricsStorage } from "./metrics_storage.ts";

/** The running resource metrics pipeline. */
export interface ResourceMetrics {
  storage: MetricsStorage;
  scraper: MetricsScraper;
  /** Stops scraping and closes the connections to the agents. */
  stop(): Promise<void>;
}

/** The longest time one scrape of one agent may take (ms). */
const MAX_SCRAPE_TIMEOUT_MS = 10_000;

/**
 * Adds the kinds to `registry` and starts scraping (unless `start` is false: tests drive
 * {@link MetricsScraper.scrapeOnce} themselves).
 */
export function startResourceMetrics(
  options: ResourceMetricsOptions | undefined,
  d: {
    registry: ResourceRegistry;
    agents: NodeConnections;
    logger?: Logger;
    clock?: Clock;
    start?: boolean;
  },
): ResourceMetrics {
  const o = options ?? { resolutionMs: 15_000, kubeletInsecureTls: false };
  const clock = d.clock ?? systemClock;
  const storage = new MetricsStorage(o.resolutionMs);
  const timeoutMs = Math.min(MAX_SCRAPE_TIMEOUT_MS, Math.max(1000, o.resolutionMs * 0.9));
  const stopping = new AbortController();
  const nodes = () => d.registry.lookup("", "v1", "nodes")!;
  const pods = () => d.registry.lookup("", "v1", "pods")!;
  const scraper = new MetricsScraper({
    listNodes: async (): Promise<KubeObject[]> =>
      (await nodes().list("", { plan: { mode: "latest" } })).items,
    get: (node, path) => d.agents.getText(node, path, timeoutMs, stopping.signal),
    storage,
    resolutionMs: o.resolutionMs,
    clock,
    logger: d.logger,
  });
  const deps = { usage: storage, nodes, pods, now: () => clock.now() };
  d.registry.add(nodeMetricsKind(deps));
  d.registry.add(podMetricsKind(deps));
  if (d.start !== false) scraper.start();
  return {
    storage,
    scraper,
    async stop() {
      const stopped = scraper.stop();
      // Aborting ends a scrape in progress at once.
      stopping.abort();
      await stopped;
    },
  };
}
