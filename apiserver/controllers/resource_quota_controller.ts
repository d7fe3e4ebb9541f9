/**
 * The resource quota controller, as kube-controller-manager's: it keeps each ResourceQuota's
 * `status.hard` equal to `spec.hard` and `status.used` equal to the usage of the objects in
 * its namespace (counted by the quota evaluators), written with a compare-and-swap on the
 * quota it read. A namespace is recounted when one of its quotas is created or its spec
 * changes, when an object in it is deleted or a pod ends or starts deleting (replenishment),
 * when a Service or claim changes, and every resync period (5 minutes, as kube's
 * `--resource-quota-sync-period`). Creates are charged by the ResourceQuota admission plugin
 * before they are stored; a namespace with a charge of this process whose object the feed has
 * not delivered yet is recounted later, so the count never misses an admitted object.
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import type { Logger } from "../../shared/log/mod.ts";
import { StatusError } from "../../shared/errors/status_error.ts";
import { deepEqual } from "../../shared/json/deep_equal.ts";
import { isObject } from "../../shared/json/is_object.ts";
import type { PendingCharges } from "../admission/resource_quota/pending_charges.ts";
import { computeQuotaStatus } from "./quota_usage.ts";
import { EvaluatorRegistry } from "../admission/resource_quota/evaluators.ts";
import { parseStoredValue } from "../registry/generic/stored_value.ts";
import type { ResourceRegistry } from "../registry/resource_registry.ts";
import type { Store } from "../registry/generic/store.ts";
import type { ChangeEvent, KeyValue } from "../storage/interface.ts";
import type { ChangeFeed } from "../watch/change_feed.ts";
import { WorkQueue } from "./work_queue.ts";

/** Options of the controller. */
export interface ResourceQuotaControllerOptions {
  registry: ResourceRegistry;
  /** The change feed it follows (started). */
  feed: ChangeFeed;
  logger?: Logger;
  /** Charges of this process's ResourceQuota admission whose objects are not stored yet. */
  pendingCharges?: PendingCharges;
  /** Resync period in ms (default 5 minutes). */
  resyncMs?: number;
}

/** Keeps ResourceQuota status up to date. */
export class ResourceQuotaController {
  readonly #opts: ResourceQuotaControllerOptions;
  readonly #queue: WorkQueue<string>;
  /** Namespaces with quotas → how many. */
  readonly #quotaCount = new Map<string, number>();
  readonly #timers = new Set<ReturnType<typeof setTimeout>>();
  readonly #evaluators = new EvaluatorRegistry();
  #unsubscribe?: () => void;
  #resync?: ReturnType<typeof setInterval>;

  constructor(opts: ResourceQuotaControllerOptions) {
    this.#opts = opts;
    this.#queue = new WorkQueue((ns) => this.#sync(ns), (ns, err) => {
      opts.logger?.error("resource quota sync failed", { namespace: ns, err: String(err) });
      this.#later(ns, 1000);
    });
  }

  /** Starts following the change feed; resolves once every namespace with quotas is queued. */
  async start(): Promise<void> {
    if (this.#queue.stopped || this.#unsubscribe) return;
    const unsubscribe = await this.#opts.feed.follow(["/registry/"], {
      reset: (items) => this.#onReset(items),
      changes: (events) => this.#onChanges(events),
    });
    if (this.#queue.stopped) return unsubscribe();
    this.#unsubscribe = unsubscribe;
    this.#resync = setInterval(() => this.resync(), this.#opts.resyncMs ?? 300_000);
  }

  /** Stops the controller and waits for the sync in progress. */
  async stop(): Promise<void> {
    const stopping = this.#queue.stop();
    this.#unsubscribe?.();
    clearInterval(this.#resync);
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    await stopping;
  }

  /** Queues every namespace with quotas. */
  resync(): void {
    for (const ns of this.#quotaCount.keys()) this.#queue.add(ns);
  }

  /** Resolves when nothing is queued or syncing. */
  idle(): Promise<void> {
    return this.#queue.idle();
  }

  #quotas(): Store {
    return this.#opts.registry.lookup("", "v1", "resourcequotas")!;
  }

  #onReset(items: KeyValue[]): void {
    this.#quotaCount.clear();
    const prefix = this.#quotas().prefix;
    for (const kv of items) {
      if (!kv.key.startsWith(prefix)) continue;
      const ns = kv.key.slice(prefix.length).split("/")[0];
      this.#quotaCount.set(ns, (this.#quotaCount.get(ns) ?? 0) + 1);
    }
    this.resync();
  }

  #onChanges(events: ChangeEvent[]): void {
    const quotaPrefix = this.#quotas().prefix;
    const pending = this.#opts.pendingCharges;
    for (const e of events) {
      if (pending && e.type !== "DELETED") pending.observe(e.key, e.revision);
      if (e.key.startsWith(quotaPrefix)) {
        const ns = e.key.slice(quotaPrefix.length).split("/")[0];
        const delta = e.type === "ADDED" ? 1 : e.type === "DELETED" ? -1 : 0;
        const count = (this.#quotaCount.get(ns) ?? 0) + delta;
        if (count > 0) this.#quotaCount.set(ns, count);
        else this.#quotaCount.delete(ns);
        if (e.type !== "DELETED" && needsSync(e)) this.#queue.add(ns);
        continue;
      }
      // Namespaced keys are /registry/<group>/<plural>/<namespace>/<name>: most changes are
      // in namespaces without quotas and cost no more than this split.
      const parts = e.key.split("/");
      if (parts.length !== 6 || !this.#quotaCount.has(parts[4])) continue;
      const store = this.#storeOfKey(e.key);
      if (store && releasesUsage(store, e)) this.#queue.add(parts[4]);
    }
  }

  #storeOfKey(key: string): Store | undefined {
    return this.#opts.registry.all().find((s) =>
      s.def.namespaced && s.storageStore === s && key.startsWith(s.prefix)
    );
  }

  #later(ns: string, ms: number): void {
    if (this.#queue.stopped) return;
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      this.#queue.add(ns);
    }, ms);
    this.#timers.add(timer);
  }

  /** Recounts every quota of `ns` once no charged object of it waits to be stored. */
  async #sync(ns: string): Promise<void> {
    if (this.#opts.pendingCharges?.hasPending(ns)) return this.#later(ns, 200);
    const list = await this.#quotas().list(ns, { plan: { mode: "latest" } });
    for (const quota of list.items) await this.#syncQuota(ns, quota);
  }

  async #syncQuota(ns: string, quota: KubeObject): Promise<void> {
    const status = await computeQuotaStatus(
      this.#opts.registry,
      ns,
      quota,
      Date.now(),
      this.#evaluators,
    );
    if (deepEqual(status, quota.status)) return;
    try {
      await this.#quotas().update(ns, quota.metadata.name!, { ...quota, status }, {
        subresource: "status",
      });
    } catch (err) {
      // A concurrent change (a charge, a spec edit) wins; count again with it.
      if (err instanceof StatusError && err.code === 409) return this.#later(ns, 50);
      if (err instanceof StatusError && err.code === 404) return;
      throw err;
    }
  }
}

const obj = (v: unknown): Record<string, unknown> => isObject(v) ? v : {};

/** Whether a changed quota's status does not match its spec (new quota, edited hard). */
function needsSync(e: ChangeEvent): boolean {
  try {
    const q = parseStoredValue(e.value, e.decoded);
    const status = obj(q.status);
    return !deepEqual(obj(obj(q.spec).hard), obj(status.hard)) || !isObject(status.used);
  } catch {
    return false;
  }
}

/** Whether a change may lower (or change) what a namespace is charged. */
function releasesUsage(store: Store, e: ChangeEvent): boolean {
  if (e.type === "DELETED") return true;
  if (e.type !== "MODIFIED" || store.def.group !== "") return false;
  const plural = store.def.plural;
  if (plural === "services" || plural === "persistentvolumeclaims") return true;
  if (plural !== "pods") return false;
  try {
    const pod = parseStoredValue(e.value, e.decoded);
    const phase = obj(pod.status).phase;
    return phase === "Succeeded" || phase === "Failed" || !!pod.metadata.deletionTimestamp;
  } catch {
    return false;
  }
}
