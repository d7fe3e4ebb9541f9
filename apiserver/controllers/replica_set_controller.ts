/**
 * The ReplicaSet controller, which also drives ReplicationControllers (kube runs one
 * implementation for both): it keeps `spec.replicas` active pods matching the selector, creating
 * them from the template with the controller's reference (slow-start batches, at most 500 per
 * sync) and deleting the extra ones in kube's preference order (see {@link podsToDelete});
 * adopts matching orphans and releases pods that stopped matching; and writes the status
 * (`replicas`, `fullyLabeledReplicas`, `readyReplicas`, `availableReplicas`,
 * `observedGeneration`, the `ReplicaFailure` condition) through the status subresource.
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import type { Logger } from "../../shared/log/mod.ts";
import { deepEqual } from "../../shared/json/deep_equal.ts";
import { StatusError } from "../../shared/errors/status_error.ts";
import {
  LabelSelector,
  labelSelectorFromObject,
  labelSelectorFromSet,
  type LabelSelectorObject,
} from "../../shared/selectors/label_selector.ts";
import type { ResourceRegistry } from "../registry/resource_registry.ts";
import type { Store } from "../registry/generic/store.ts";
import type { ChangeFeed } from "../watch/change_feed.ts";
import { claimObjects, controllerOf } from "./controller_ref.ts";
import { ControllerEvents } from "./workloads/controller_events.ts";
import { Informer } from "./informer.ts";
import { KeyedQueue } from "./keyed_queue.ts";
import { ControllerExpectations, PodControl } from "./pod_control.ts";
import { CONTROLLER_MANAGER, controllerUser } from "./controller_identity.ts";
import { isActive, isAvailable, isReady } from "./pod_state.ts";
import { podsToDelete } from "./pod_ranking.ts";

const PODS = "/registry/core/pods/";
/** Most pods created or deleted in one sync (kube's BurstReplicas). */
const BURST = 500;

/** Which kind the controller drives. */
export interface ReplicatedKind {
  group: string;
  resource: string;
  kind: string;
  /** Storage prefix of the kind. */
  prefix: string;
  /** kube's controller name (events' component, the service account). */
  component: string;
  /** The selector of an object. */
  selector(obj: KubeObject): LabelSelector;
}

/** apps/v1 ReplicaSet. */
export const REPLICA_SET: ReplicatedKind = {
  group: "apps",
  resource: "replicasets",
  kind: "ReplicaSet",
  prefix: "/registry/apps/replicasets/",
  component: "replicaset-controller",
  selector: (o) =>
    safeSelector(() => labelSelectorFromObject(specOf(o).selector as LabelSelectorObject)),
};

/** core/v1 ReplicationController (its selector is a label map, defaulting to the template's labels). */
export const REPLICATION_CONTROLLER: ReplicatedKind = {
  group: "",
  resource: "replicationcontrollers",
  kind: "ReplicationController",
  prefix: "/registry/core/replicationcontrollers/",
  component: "replication-controller",
  selector: (o) => {
    const sel = specOf(o).selector as Record<string, string> | undefined;
    if (!sel || Object.keys(sel).length === 0) return LabelSelector.nothing();
    return labelSelectorFromSet(sel);
  },
};

function safeSelector(make: () => LabelSelector): LabelSelector {
  try {
    return make();
  } catch {
    return LabelSelector.nothing();
  }
}

function specOf(o: KubeObject): Record<string, unknown> {
  return (o.spec ?? {}) as Record<string, unknown>;
}

/** Options of the controller. */
export interface ReplicaSetControllerOptions {
  registry: ResourceRegistry;
  feed: ChangeFeed;
  kind: ReplicatedKind;
  logger?: Logger;
  /** Informer resync period, ms (default 30 s). */
  resyncMs?: number;
  now?: () => number;
}

/** Keeps ReplicaSets' (or ReplicationControllers') pods. */
export class ReplicaSetController {
  readonly #opts: ReplicaSetControllerOptions;
  readonly #informer: Informer;
  readonly #loop: KeyedQueue;
  readonly #expectations: ControllerExpectations;
  readonly #pods: PodControl;
  readonly #now: () => number;

  constructor(opts: ReplicaSetControllerOptions) {
    this.#opts = opts;
    this.#now = opts.now ?? Date.now;
    this.#expectations = new ControllerExpectations(this.#now);
    const events = new ControllerEvents(
      () => opts.registry.lookup("", "v1", "events"),
      opts.kind.component,
      { now: this.#now },
    );
    this.#pods = new PodControl({
      pods: () => opts.registry.lookup("", "v1", "pods")!,
      events,
      user: controllerUser(opts.kind.component),
    });
    this.#loop = new KeyedQueue(opts.kind.component, (key) => this.sync(key), opts.logger);
    this.#informer = new Informer({
      feed: opts.feed,
      prefixes: [opts.kind.prefix, PODS],
      handler: (prefix, obj, old) => this.#changed(prefix, obj, old),
      resyncMs: opts.resyncMs ?? 30_000,
    });
  }

  /** Starts following; resolves once the initial state is cached and queued. */
  async start(): Promise<void> {
    if (!this.#loop.stopped) await this.#informer.start();
  }

  /** Stops and waits for the sync in progress. */
  async stop(): Promise<void> {
    this.#informer.stop();
    await this.#loop.stop();
  }

  /** Resolves when no sync runs or waits. */
  idle(): Promise<void> {
    return this.#loop.idle();
  }

  #changed(prefix: string, obj: KubeObject | undefined, old: KubeObject | undefined): void {
    const { kind } = this.#opts;
    const o = (obj ?? old)!;
    const key = `${o.metadata.namespace}/${o.metadata.name}`;
    if (prefix === kind.prefix) {
      this.#loop.add(key);
      return;
    }
    const owners = new Set<string>();
    for (const p of [obj, old]) {
      const ref = p && controllerOf(p);
      if (ref?.kind === kind.kind) owners.add(`${o.metadata.namespace}/${ref.name}`);
    }
    if (!old && obj && owners.size > 0) { for (const k of owners) this.#expectations.created(k); }
    if (!obj && old) { for (const k of owners) this.#expectations.deleted(k, key); }
    if (owners.size === 0 && obj && !obj.metadata.deletionTimestamp) {
      // An orphan: every controller whose selector matches may adopt it.
      for (const c of this.#informer.list(kind.prefix, o.metadata.namespace)) {
        if (kind.selector(c).matches(obj.metadata.labels)) {
          owners.add(`${o.metadata.namespace}/${c.metadata.name}`);
        }
      }
    }
    for (const k of owners) this.#loop.add(k);
  }

  /** Syncs the controller `<namespace>/<name>`. */
  async sync(key: string): Promise<void> {
    const [namespace, name] = key.split("/");
    const { kind } = this.#opts;
    const rs = this.#informer.get(kind.prefix, namespace, name);
    if (!rs) {
      this.#expectations.forget(key);
      return;
    }
    const needsSync = this.#expectations.satisfied(key);
    const selector = kind.selector(rs);
    const active = this.#informer.list(PODS, namespace).filter(isActive);
    const pods = await claimObjects(
      this.#store("", "pods"),
      rs,
      selector,
      active,
      controllerUser(kind.component),
    );
    let failure: { reason: string; message: string } | undefined;
    if (needsSync && !rs.metadata.deletionTimestamp) failure = await this.#manage(key, rs, pods);
    await this.#writeStatus(rs, pods, failure);
    const minReady = (specOf(rs).minReadySeconds as number | undefined) ?? 0;
    if (minReady > 0 && pods.some((p) => isReady(p) && !isAvailable(p, minReady, this.#now()))) {
      this.#loop.after(key, minReady * 1000);
    }
  }

  /** Creates or deletes pods toward `spec.replicas`; answers the failure to report, if any. */
  async #manage(
    key: string,
    rs: KubeObject,
    pods: KubeObject[],
  ): Promise<{ reason: string; message: string } | undefined> {
    const wanted = (specOf(rs).replicas as number | undefined) ?? 1;
    const diff = pods.length - wanted;
    if (diff < 0) {
      const n = Math.min(-diff, BURST);
      this.#expectations.expect(key, n);
      const template = (specOf(rs).template ?? {}) as KubeObject;
      const { created, error } = await this.#pods.createBatch(rs, template, n);
      // Pods never attempted or failed will not be seen.
      this.#expectations.lowerAdds(key, n - created);
      if (error === undefined) return undefined;
      if (error instanceof StatusError && error.code === 409) return undefined;
      return { reason: "FailedCreate", message: errorMessage(error) };
    }
    if (diff > 0) {
      const doomed = podsToDelete(pods, Math.min(diff, BURST));
      this.#expectations.expect(
        key,
        0,
        doomed.map((p) => `${p.metadata.namespace}/${p.metadata.name}`),
      );
      const errors = (await Promise.all(doomed.map((p) => this.#pods.delete(rs, p))))
        .filter((e) => e !== undefined);
      for (const p of doomed) {
        this.#expectations.deleted(key, `${p.metadata.namespace}/${p.metadata.name}`);
      }
      if (errors.length > 0) return { reason: "FailedDelete", message: errorMessage(errors[0]) };
    }
    return undefined;
  }

  async #writeStatus(
    rs: KubeObject,
    pods: KubeObject[],
    failure: { reason: string; message: string } | undefined,
  ): Promise<void> {
    const now = this.#now();
    const minReady = (specOf(rs).minReadySeconds as number | undefined) ?? 0;
    const templateLabels = ((specOf(rs).template ?? {}) as KubeObject).metadata?.labels ?? {};
    const labeled = labelSelectorFromSet(templateLabels);
    const counts = {
      replicas: pods.length,
      fullyLabeledReplicas: pods.filter((p) => labeled.matches(p.metadata.labels)).length,
      readyReplicas: pods.filter(isReady).length,
      availableReplicas: pods.filter((p) => isAvailable(p, minReady, now)).length,
      observedGeneration: rs.metadata.generation,
    };
    try {
      await this.#store(this.#opts.kind.group, this.#opts.kind.resource).guaranteedUpdate(
        rs.metadata.namespace!,
        rs.metadata.name!,
        (current) => {
          if (!current || current.metadata.uid !== rs.metadata.uid) return undefined;
          const old = (current.status ?? {}) as Record<string, unknown>;
          const status = { ...old, ...counts, conditions: failureConditions(old, failure, now) };
          if (!status.conditions) delete status.conditions;
          if (deepEqual(status, old)) return undefined;
          current.status = status;
          return current;
        },
        {},
        {
          subresource: "status",
          user: controllerUser(this.#opts.kind.component),
          fieldManager: CONTROLLER_MANAGER,
        },
      );
    } catch (err) {
      if (err instanceof StatusError && (err.code === 404 || err.code === 409)) return;
      throw err;
    }
  }

  #store(group: string, resource: string): Store {
    return this.#opts.registry.lookup(group, "v1", resource)!;
  }
}

type Condition = {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
};

/** The conditions with `ReplicaFailure` set from `failure`, or removed without one. */
function failureConditions(
  status: Record<string, unknown>,
  failure: { reason: string; message: string } | undefined,
  now: number,
): Condition[] | undefined {
  const conds = ((status.conditions ?? []) as Condition[]).filter((c) =>
    c.type !== "ReplicaFailure"
  );
  const old = ((status.conditions ?? []) as Condition[]).find((c) => c.type === "ReplicaFailure");
  if (failure) {
    conds.push({
      type: "ReplicaFailure",
      status: "True",
      lastTransitionTime: old?.lastTransitionTime ??
        new Date(now).toISOString().replace(/\.\d+Z$/, "Z"),
      reason: failure.reason,
      message: failure.message,
    });
  }
  return conds.length > 0 ? conds : undefined;
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
