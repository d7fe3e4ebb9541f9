/**
 * Scrapes `/metrics/resource` of every Ready node's agent every resolution (15 s by default,
 * `--metrics-resolution`), as metrics-server does, and stores each round in the
 * {@link MetricsStorage}. Ready nodes that publish their agent's port
 * (`status.daemonEndpoints.kubeletEndpoint.Port`) are scraped, through the server's connections
 * to node agents. Nothing is scraped while there are no nodes; a node that cannot be scraped
 * keeps no points for that round.
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import type { Logger } from "../../shared/log/mod.ts";
import type { Clock } from "../registry/generic/clock.ts";
import { decodeResourceMetrics, type MetricsBatch } from "./decode_resource_metrics.ts";
import type { MetricsStorage } from "./metrics_storage.ts";

/** GETs a path of a node's agent. */
export type AgentGet = (node: KubeObject, path: string) => Promise<string>;

/** Options of {@link MetricsScraper}. */
export interface MetricsScraperOptions {
  /** The Nodes now. */
  listNodes: () => Promise<KubeObject[]>;
  get: AgentGet;
  storage: MetricsStorage;
  resolutionMs: number;
  clock: Clock;
  logger?: Logger;
}

interface NodeStatusView {
  conditions?: { type?: string; status?: string }[];
  daemonEndpoints?: { kubeletEndpoint?: { Port?: number } };
}

/** Whether a node's agent is scraped: the node is Ready and publishes its agent's port. */
export function isScraped(node: KubeObject): boolean {
  const st = (node.status ?? {}) as NodeStatusView;
  const ready = st.conditions?.find((c) => c.type === "Ready")?.status === "True";
  return ready && (st.daemonEndpoints?.kubeletEndpoint?.Port ?? 0) > 0;
}

/** See the module documentation. */
export class MetricsScraper {
  readonly #o: MetricsScraperOptions;
  #timer?: ReturnType<typeof setTimeout>;
  #running?: Promise<void>;
  #stopped = false;

  constructor(opts: MetricsScraperOptions) {
    this.#o = opts;
  }

  /** Scrapes now and then every resolution until stopped. */
  start(): void {
    const tick = () => {
      if (this.#stopped) return;
      this.#running = this.scrapeOnce()
        .catch((err) => this.#o.logger?.warn("metrics scrape failed", { err: String(err) }))
        .finally(() => {
          if (!this.#stopped) this.#timer = setTimeout(tick, this.#o.resolutionMs);
        });
    };
    tick();
  }

  /** Stops scraping; resolves when a round in progress ended. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
  }

  /** One round: every Ready node's agent, in parallel; stores the batches. */
  async scrapeOnce(): Promise<void> {
    const nodes = await this.#o.listNodes();
    if (nodes.length === 0) {
      this.#o.storage.store(new Map());
      return;
    }
    const batches = new Map<string, MetricsBatch>();
    await Promise.all(nodes.map(async (node) => {
      const name = node.metadata.name ?? "";
      if (!isScraped(node)) return;
      const scrapeTimeMs = this.#o.clock.now();
      try {
        const text = await this.#o.get(node, "/metrics/resource");
        batches.set(name, decodeResourceMetrics(text, scrapeTimeMs));
      } catch (err) {
        this.#o.logger?.v(1).info("failed to scrape node", {
          node: name,
          err: String((err as Error)?.message ?? err),
        });
      }
    }));
    this.#o.storage.store(batches);
  }
}
