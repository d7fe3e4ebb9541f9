/**
 * Keeps the `Available` condition of every remote APIService current, as kube-aggregator's
 * remote availability controller: each is checked (see availability_checks.ts) when it or a
 * Service or EndpointSlice of its namespace changes, every resync period (kube: 30 s), and
 * after a failed check again with a backoff from 5 ms doubling to 30 s. The status is written
 * only when the condition changes.
 *
 * @module
 */
import type { Logger } from "../../shared/log/mod.ts";
import { StatusError } from "../../shared/errors/status_error.ts";
import { isObject } from "../../shared/json/is_object.ts";
import { WorkQueue } from "../controllers/work_queue.ts";
import type { ResourceRegistry } from "../registry/resource_registry.ts";
import type { ChangeEvent } from "../storage/interface.ts";
import type { ChangeFeed } from "../watch/change_feed.ts";
import { type ApiServiceCache, apiServiceInfo } from "./api_service_cache.ts";
import { type AvailabilityDeps, checkAvailability } from "./availability_checks.ts";
import { withAvailability } from "./available_condition.ts";
import type { AggregatorMetrics } from "./aggregator_metrics.ts";

/** Options of the controller. */
export interface AvailabilityControllerOptions extends AvailabilityDeps {
  registry: ResourceRegistry;
  cache: ApiServiceCache;
  feed: ChangeFeed;
  /** Period of the recheck of every remote APIService, ms (default 30 s). */
  resyncMs?: number;
  logger?: Logger;
  /** Counts the APIServices turning unavailable. */
  metrics?: AggregatorMetrics;
}

const MAX_BACKOFF_MS = 30_000;

/** See the module documentation. */
export class AvailabilityController {
  readonly #opts: AvailabilityControllerOptions;
  readonly #queue: WorkQueue<string>;
  readonly #failures = new Map<string, number>();
  readonly #retries = new Map<string, ReturnType<typeof setTimeout>>();
  readonly #unsubscribes: (() => void)[] = [];
  #timer?: ReturnType<typeof setInterval>;

  constructor(opts: AvailabilityControllerOptions) {
    this.#opts = opts;
    this.#queue = new WorkQueue((name) => this.#sync(name), (name, err) => {
      opts.logger?.error("APIService availability check failed", { name, err: String(err) });
      this.#retry(name);
    });
  }

  /** Checks every remote APIService, then follows changes and resyncs. */
  async start(): Promise<void> {
    const { cache, registry, feed } = this.#opts;
    this.#unsubscribes.push(cache.onChange((names) => names.forEach((n) => this.#queue.add(n))));
    const prefixes = [
      registry.lookup("", "v1", "services")?.prefix,
      registry.lookup("discovery.k8s.io", "v1", "endpointslices")?.prefix,
    ].filter((p): p is string => !!p);
    this.#unsubscribes.push(
      await feed.follow(prefixes, {
        reset: () => {
          this.#opts.transport.invalidate(
            new Set(this.#opts.cache.all().flatMap((a) => a.service ? [a.service.namespace] : [])),
          );
          this.resync();
        },
        changes: (events) => this.#onServiceChanges(events, prefixes),
      }),
    );
    this.resync();
    this.#timer = setInterval(() => this.resync(), this.#opts.resyncMs ?? 30_000);
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    for (const u of this.#unsubscribes) u();
    for (const t of this.#retries.values()) clearTimeout(t);
    this.#retries.clear();
    await this.#queue.stop();
  }

  /** Queues every remote APIService. */
  resync(): void {
    for (const api of this.#opts.cache.all()) if (api.service) this.#queue.add(api.name);
  }

  /** Resolves once nothing is queued or being checked. */
  idle(): Promise<void> {
    return this.#queue.idle();
  }

  #onServiceChanges(events: ChangeEvent[], prefixes: string[]): void {
    const namespaces = new Set<string>();
    for (const e of events) {
      const prefix = prefixes.find((p) => e.key.startsWith(p));
      if (prefix) namespaces.add(e.key.slice(prefix.length).split("/")[0]);
    }
    if (namespaces.size === 0) return;
    this.#opts.transport.invalidate(namespaces);
    for (const api of this.#opts.cache.all()) {
      if (api.service && namespaces.has(api.service.namespace)) this.#queue.add(api.name);
    }
  }

  async #sync(name: string): Promise<void> {
    const api = this.#opts.cache.get(name);
    if (!api?.service) {
      this.#failures.delete(name);
      return;
    }
    const availability = await checkAvailability(this.#opts, api);
    const store = this.#opts.registry.lookup("apiregistration.k8s.io", "v1", "apiservices")!;
    let wasAvailable: boolean | undefined;
    try {
      await store.guaranteedUpdate(
        "",
        name,
        (cur) => {
          if (!cur || !isObject(cur.spec) || !isObject(cur.spec.service)) return undefined;
          const status = withAvailability(cur, availability);
          if (!status) return undefined;
          wasAvailable = apiServiceInfo(cur).available;
          cur.status = status;
          return cur;
        },
        {},
        { fieldManager: "kube-apiserver", subresource: "status" },
      );
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 404)) throw err;
    }
    if (wasAvailable !== undefined && availability.status !== "True" && wasAvailable) {
      this.#opts.metrics?.unavailableTotal.inc({ name, reason: availability.reason });
    }
    if (availability.status === "True") this.#failures.delete(name);
    else this.#retry(name);
  }

  #retry(name: string): void {
    if (this.#queue.stopped || this.#retries.has(name)) return;
    const n = this.#failures.get(name) ?? 0;
    this.#failures.set(name, n + 1);
    const delay = Math.min(MAX_BACKOFF_MS, 5 * 2 ** n);
    this.#retries.set(
      name,
      setTimeout(() => {
        this.#retries.delete(name);
        this.#queue.add(name);
      }, delay),
    );
  }
}
