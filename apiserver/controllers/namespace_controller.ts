/**
 * The namespace controller: when a namespace is terminating, it deletes everything in it and,
 * once nothing is left, removes the `kubernetes` finalizer so the namespace goes away.
 *
 * It follows the watch caches' change feed, which delivers every API server's commits on a
 * shared database in revision order: a namespace marked terminating through any server, and
 * every deletion of its content, reaches it within about a poll interval. A namespace whose
 * sync failed is retried with a per-namespace backoff (5 ms doubling to 60 s, as Kubernetes'
 * namespace controller), and every terminating namespace is queued again periodically
 * (`--namespace-sync-period`, 5 minutes by default in Kubernetes).
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import type { Logger } from "../../shared/log/mod.ts";
import { NAMESPACE_FINALIZER } from "../registry/core/namespaces/strategy.ts";
import { parseStoredValue } from "../registry/generic/stored_value.ts";
import type { ResourceRegistry } from "../registry/resource_registry.ts";
import type { ChangeEvent, KeyValue } from "../storage/interface.ts";
import type { ChangeFeed } from "../watch/change_feed.ts";
import { WorkQueue } from "./work_queue.ts";

/** The first retry of a failed sync waits this long (ms); each further failure doubles it. */
const RETRY_BASE_MS = 5;
/** The longest wait before a retry (ms). */
const RETRY_MAX_MS = 60_000;

/** Options of the controller. */
export interface NamespaceControllerOptions {
  registry: ResourceRegistry;
  /** The change feed it follows (started). */
  feed: ChangeFeed;
  logger?: Logger;
  /** Resync period in ms (default 5 minutes, as Kubernetes' namespace sync period). */
  resyncMs?: number;
}

/** Finalizes terminating namespaces. */
export class NamespaceController {
  readonly #opts: NamespaceControllerOptions;
  /** Names of terminating namespaces to finalize. */
  readonly #queue: WorkQueue<string>;
  #unsubscribe?: () => void;
  #timer?: ReturnType<typeof setInterval>;
  readonly #resyncs = new Set<Promise<void>>();
  /** Consecutive failed syncs, by namespace. */
  readonly #failures = new Map<string, number>();
  readonly #retries = new Set<ReturnType<typeof setTimeout>>();

  constructor(opts: NamespaceControllerOptions) {
    this.#opts = opts;
    this.#queue = new WorkQueue(async (name) => {
      await this.#sync(name);
      this.#failures.delete(name);
    }, (name, err) => {
      opts.logger?.error("namespace sync failed", { namespace: name, err: String(err) });
      this.#retryLater(name);
    });
  }

  /**
   * Starts following the change feed (queueing every terminating namespace it lists first)
   * and resyncing; resolves once the feed's initial state was handled.
   */
  async start(): Promise<void> {
    if (this.#queue.stopped || this.#unsubscribe) return;
    const unsubscribe = await this.#opts.feed.follow(["/registry/"], {
      reset: (items) => this.#onReset(items),
      changes: (events) => this.#onChanges(events),
    });
    if (this.#queue.stopped) {
      unsubscribe();
      return;
    }
    this.#unsubscribe = unsubscribe;
    this.#timer = setInterval(() => this.resync(), this.#opts.resyncMs ?? 300_000);
  }

  /** Stops the controller and waits for the work in progress. */
  async stop(): Promise<void> {
    const stopping = this.#queue.stop();
    this.#unsubscribe?.();
    clearInterval(this.#timer);
    for (const t of this.#retries) clearTimeout(t);
    this.#retries.clear();
    await Promise.all(this.#resyncs);
    await stopping;
  }

  /** Queues every terminating namespace. */
  resync(): void {
    if (this.#queue.stopped) return;
    const done = this.#namespaces().list("", { plan: { mode: "latest" } }).then((list) => {
      for (const ns of list.items) {
        if (ns.metadata.deletionTimestamp) this.#enqueue(ns.metadata.name!);
      }
    }).catch((err) => this.#opts.logger?.error("namespace resync failed", { err: String(err) }))
      .finally(() => this.#resyncs.delete(done));
    // stop() waits for lists in flight, so nothing reads storage after it returns.
    this.#resyncs.add(done);
  }

  #namespaces() {
    return this.#opts.registry.lookup("", "v1", "namespaces")!;
  }

  /** The complete state (at start, and whenever the feed lists everything anew). */
  #onReset(items: KeyValue[]): void {
    const nsPrefix = this.#namespaces().prefix;
    for (const kv of items) {
      if (!kv.key.startsWith(nsPrefix)) continue;
      if (isTerminating(kv.value)) this.#enqueue(kv.key.slice(nsPrefix.length));
    }
  }

  #onChanges(events: ChangeEvent[]): void {
    const nsPrefix = this.#namespaces().prefix;
    for (const e of events) {
      if (e.key.startsWith(nsPrefix)) {
        if (e.type !== "DELETED" && isTerminating(e.value, e.decoded)) {
          this.#enqueue(e.key.slice(nsPrefix.length));
        }
      } else if (e.type === "DELETED") {
        // Content disappearing may unblock a terminating namespace.
        const ns = this.#namespaceOfKey(e.key);
        if (ns) this.#enqueue(ns);
      }
    }
  }

  #namespaceOfKey(key: string): string | undefined {
    for (const s of this.#opts.registry.all()) {
      if (s.def.namespaced && key.startsWith(s.prefix)) {
        return key.slice(s.prefix.length).split("/")[0];
      }
    }
    return undefined;
  }

  #enqueue(name: string): void {
    this.#queue.add(name);
  }

  /** Queues `name` again after its backoff. */
  #retryLater(name: string): void {
    if (this.#queue.stopped) return;
    const failures = (this.#failures.get(name) ?? 0) + 1;
    this.#failures.set(name, failures);
    const delay = Math.min(RETRY_BASE_MS * 2 ** (failures - 1), RETRY_MAX_MS);
    const timer = setTimeout(() => {
      this.#retries.delete(timer);
      this.#enqueue(name);
    }, delay);
    this.#retries.add(timer);
  }

  async #sync(name: string): Promise<void> {
    let ns: KubeObject;
    try {
      ns = await this.#namespaces().get("", name);
    } catch {
      return;
    }
    if (!ns.metadata.deletionTimestamp) return;
    let remaining = 0;
    for (const store of this.#opts.registry.storageStores()) {
      if (!store.def.namespaced) continue;
      const list = await store.list(name, { plan: { mode: "latest" } });
      if (list.items.length === 0) continue;
      const deleted = await store.deleteCollection(name, { plan: { mode: "latest" } }, {});
      remaining += deleted.items.length;
    }
    if (remaining > 0) {
      // Objects with finalizers (or a grace period) remain; a later commit or resync retries.
      const left = await this.#countContent(name);
      if (left > 0) return;
    }
    await this.#namespaces().guaranteedUpdate(
      "",
      name,
      (current) => {
        const spec = (current?.spec ?? {}) as { finalizers?: string[] };
        const finalizers = (spec.finalizers ?? []).filter((f) => f !== NAMESPACE_FINALIZER);
        return current && { ...current, spec: { ...spec, finalizers } };
      },
      {},
      { subresource: "finalize" },
    );
  }

  async #countContent(name: string): Promise<number> {
    let n = 0;
    for (const store of this.#opts.registry.storageStores()) {
      if (!store.def.namespaced) continue;
      n += (await store.list(name, { plan: { mode: "latest" }, limit: 1 })).items.length;
    }
    return n;
  }
}

/** Whether a stored Namespace is marked for deletion (unreadable values count as not). */
function isTerminating(value: string, decoded?: unknown): boolean {
  try {
    return !!parseStoredValue(value, decoded)?.metadata?.deletionTimestamp;
  } catch {
    return false;
  }
}
