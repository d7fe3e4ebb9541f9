/**
 * The disruption controller: keeps every PodDisruptionBudget's status current (see
 * budgetStatus) as pods and budgets change, so that evictions see how many disruptions each
 * budget allows. It follows the change feed for pods and budgets (every API server's commits),
 * recomputes the budgets of each namespace that changed, and resyncs every budget periodically
 * (evicted pods that were not deleted stop counting as disrupted after two minutes). Status is
 * written through the status subresource, over the stored budget, with no user.
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import type { Logger } from "../../shared/log/mod.ts";
import { deepEqual } from "../../shared/json/deep_equal.ts";
import { isObject } from "../../shared/json/is_object.ts";
import { StatusError } from "../../shared/errors/status_error.ts";
import type { ResourceRegistry } from "../registry/resource_registry.ts";
import type { Store } from "../registry/generic/store.ts";
import type { ChangeEvent, KeyValue } from "../storage/interface.ts";
import type { ChangeFeed } from "../watch/change_feed.ts";
import { budgetStatus, type ScaleOf } from "../registry/policy/poddisruptionbudgets/disruption.ts";
import { WorkQueue } from "./work_queue.ts";

const PODS = "/registry/core/pods/";
const BUDGETS = "/registry/policy/poddisruptionbudgets/";

/** Options of the controller. */
export interface DisruptionControllerOptions {
  registry: ResourceRegistry;
  /** The change feed it follows (started). */
  feed: ChangeFeed;
  logger?: Logger;
  /** Resync period in ms (default 30 s). */
  resyncMs?: number;
  now?: () => number;
}

/** The namespace of a key under `prefix` (`<prefix><namespace>/<name>`). */
function namespaceOf(key: string): string | undefined {
  for (const prefix of [PODS, BUDGETS]) {
    if (key.startsWith(prefix)) return key.slice(prefix.length).split("/")[0];
  }
  return undefined;
}

/** Keeps PodDisruptionBudget statuses current. */
export class DisruptionController {
  readonly #opts: DisruptionControllerOptions;
  /** Namespaces whose budgets need their status recomputed. */
  readonly #queue: WorkQueue<string>;
  #unsubscribe?: () => void;
  #timer?: ReturnType<typeof setInterval>;

  constructor(opts: DisruptionControllerOptions) {
    this.#opts = opts;
    this.#queue = new WorkQueue(
      (ns) => this.syncNamespace(ns),
      (ns, err) =>
        opts.logger?.error("disruption budget sync failed", { namespace: ns, err: String(err) }),
    );
  }

  /** Starts following pods and budgets; resolves once the initial state was queued. */
  async start(): Promise<void> {
    if (this.#queue.stopped || this.#unsubscribe) return;
    const unsubscribe = await this.#opts.feed.follow([PODS, BUDGETS], {
      reset: (items: KeyValue[]) => this.#mark(items.map((kv) => kv.key)),
      changes: (events: ChangeEvent[]) => this.#mark(events.map((e) => e.key)),
    });
    if (this.#queue.stopped) {
      unsubscribe();
      return;
    }
    this.#unsubscribe = unsubscribe;
    this.#timer = setInterval(() => this.resync(), this.#opts.resyncMs ?? 30_000);
  }

  /** Stops the controller and waits for the work in progress. */
  async stop(): Promise<void> {
    this.#unsubscribe?.();
    clearInterval(this.#timer);
    await this.#queue.stop();
  }

  /** Queues every namespace that has a budget. */
  async resync(): Promise<void> {
    const list = await this.#budgets().list("", { plan: { mode: "latest" } }).catch(() =>
      undefined
    );
    this.#mark((list?.items ?? []).map((b) => `${BUDGETS}${b.metadata.namespace}/`));
  }

  #mark(keys: readonly string[]): void {
    for (const key of keys) {
      const ns = namespaceOf(key);
      if (ns !== undefined) this.#queue.add(ns);
    }
  }

  #budgets(): Store {
    return this.#opts.registry.lookup("policy", "v1", "poddisruptionbudgets")!;
  }

  #store(group: string, resource: string): Store | undefined {
    return this.#opts.registry.lookup(group, "v1", resource);
  }

  /** Recomputes the status of every budget in `namespace`. */
  async syncNamespace(namespace: string): Promise<void> {
    const budgets = (await this.#budgets().list(namespace, { plan: { mode: "latest" } })).items;
    if (budgets.length === 0) return;
    const pods = (await this.#store("", "pods")!.list(namespace, { plan: { mode: "latest" } }))
      .items;
    const now = (this.#opts.now ?? Date.now)();
    const scaleOf = this.#scaleOf();
    for (const pdb of budgets) {
      if (this.#queue.stopped) return;
      try {
        await this.#budgets().guaranteedUpdate(
          namespace,
          pdb.metadata.name!,
          async (current) => {
            if (!current) return undefined;
            const status = await budgetStatus(current, pods, scaleOf, now);
            if (deepEqual(status, current.status)) return undefined;
            current.status = status;
            return current;
          },
          {},
          { subresource: "status" },
        );
      } catch (err) {
        // Deleted meanwhile, or written by an eviction: that commit queues the namespace again.
        if (err instanceof StatusError && (err.code === 404 || err.code === 409)) continue;
        throw err;
      }
    }
  }

  /** The finders of kube's disruption controller: ReplicationController, Deployment, ReplicaSet, StatefulSet. */
  #scaleOf(): ScaleOf {
    const read = async (group: string, resource: string, ns: string, name: string) => {
      try {
        return await this.#store(group, resource)?.get(ns, name);
      } catch {
        return undefined;
      }
    };
    const replicas = (o: KubeObject) =>
      isObject(o.spec) && typeof o.spec.replicas === "number" ? o.spec.replicas : 1;
    return async (ref, ns) => {
      const group = ref.apiVersion.includes("/") ? ref.apiVersion.split("/")[0] : "";
      const byKind: Record<string, [string, string]> = {
        ReplicationController: ["", "replicationcontrollers"],
        ReplicaSet: ["apps", "replicasets"],
        StatefulSet: ["apps", "statefulsets"],
      };
      const target = byKind[ref.kind];
      if (!target || target[0] !== group) return undefined;
      const owner = await read(target[0], target[1], ns, ref.name);
      if (!owner || owner.metadata.uid !== ref.uid) return undefined;
      const parent = (owner.metadata.ownerReferences ?? []).find((r) => r.controller === true);
      if (ref.kind === "ReplicaSet" && parent?.kind === "Deployment") {
        const dep = await read("apps", "deployments", ns, parent.name);
        return dep && dep.metadata.uid === parent.uid
          ? { uid: dep.metadata.uid!, scale: replicas(dep) }
          : undefined;
      }
      return { uid: owner.metadata.uid!, scale: replicas(owner) };
    };
  }
}
