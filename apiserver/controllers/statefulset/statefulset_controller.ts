/**
 * The statefulset controller (kube's `statefulset-controller`): pods `<set>-<ordinal>` with
 * stable identity and claims from `volumeClaimTemplates`, created in ordinal order and each
 * waited for (Running and Ready) under `OrderedReady`, all at once under `Parallel`; scaled down
 * from the highest ordinal; templates versioned as ControllerRevisions; `RollingUpdate`
 * replaces pods from the highest ordinal down to `partition`, one at a time, while `OnDelete`
 * only recreates deleted pods at the new revision; status as kube's (replicas, readyReplicas,
 * currentReplicas, updatedReplicas, availableReplicas, currentRevision, updateRevision).
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import type { Logger } from "../../../shared/log/mod.ts";
import { deepEqual } from "../../../shared/json/deep_equal.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import { type Clock, systemClock } from "../../registry/generic/clock.ts";
import type { ResourceRegistry } from "../../registry/resource_registry.ts";
import type { Store } from "../../registry/generic/store.ts";
import type { ChangeFeed } from "../../watch/change_feed.ts";
import { ControllerEvents } from "../workloads/controller_events.ts";
import { controllerKeyOf, KeyedLoop, keysIn, splitKey } from "../workloads/keyed_loop.ts";
import {
  currentRevision,
  REVISION_HASH_LABEL,
  STATEFUL_HASH_LABEL,
  truncateHistory,
} from "../workloads/controller_revisions.ts";
import { ordinalOf, setSpec } from "./stateful_pods.ts";
import { type SetContext, statefulStatus, syncReplicas } from "./stateful_sync.ts";

const SETS = "/registry/apps/statefulsets/";
const PODS = "/registry/core/pods/";

/** Options of the controller. */
export interface StatefulSetControllerOptions {
  registry: ResourceRegistry;
  feed: ChangeFeed;
  clock?: Clock;
  logger?: Logger;
}

/** Runs StatefulSets. */
export class StatefulSetController {
  readonly #opts: StatefulSetControllerOptions;
  readonly #clock: Clock;
  readonly #loop: KeyedLoop;
  readonly #events: ControllerEvents;

  constructor(opts: StatefulSetControllerOptions) {
    this.#opts = opts;
    this.#clock = opts.clock ?? systemClock;
    this.#events = new ControllerEvents(
      () => opts.registry.lookup("", "v1", "events"),
      "statefulset-controller",
      this.#clock,
      opts.logger,
    );
    this.#loop = new KeyedLoop({
      name: "statefulset controller",
      feed: opts.feed,
      prefixes: [SETS, PODS],
      keysOf: (key, obj) => {
        if (key.startsWith(SETS)) return [`${obj.metadata.namespace}/${obj.metadata.name}`];
        const owner = controllerKeyOf(obj, "StatefulSet");
        return owner ? [owner] : [];
      },
      sync: (key) => this.sync(key),
      // A create refused meanwhile (quota, a missing ServiceAccount) is tried again.
      resyncKeys: () => keysIn(opts.registry.lookup("apps", "v1", "statefulsets")!),
      logger: opts.logger,
    });
  }

  /** Starts following StatefulSets and pods. */
  start(): Promise<void> {
    return this.#loop.start();
  }

  /** Stops and waits for the sync in progress. */
  stop(): Promise<void> {
    return this.#loop.stop();
  }

  #store(group: string, resource: string): Store {
    return this.#opts.registry.lookup(group, "v1", resource)!;
  }

  /** Syncs the StatefulSet `<namespace>/<name>`; answers when it wants to run again (ms). */
  async sync(key: string): Promise<number | undefined> {
    const [ns, name] = splitKey(key);
    const set = await this.#store("apps", "statefulsets").get(ns, name).catch(() => undefined);
    if (!set || set.metadata.deletionTimestamp) return undefined;
    const revStore = this.#store("apps", "controllerrevisions");
    const { revision: update, revisions } = await currentRevision(
      revStore,
      set,
      "apps/v1",
      "StatefulSet",
      STATEFUL_HASH_LABEL,
    );
    const stored = (set.status ?? {}) as Record<string, unknown>;
    const current = revisions.find((r) => r.metadata.name === stored.currentRevision) ?? update;
    const pods = (await this.#store("", "pods").list(ns, { plan: { mode: "latest" } })).items
      .filter((p) =>
        (p.metadata.ownerReferences ?? []).some((r) => r.controller && r.uid === set.metadata.uid)
      )
      .filter((p) => ordinalOf(set, p) !== undefined);
    const ctx: SetContext = {
      set,
      current,
      update,
      pods,
      podStore: this.#store("", "pods"),
      claims: this.#store("", "persistentvolumeclaims"),
      events: this.#events,
      now: this.#clock.now(),
    };
    let again = await syncReplicas(ctx);
    const status = statefulStatus(ctx);
    await this.#writeStatus(set, status);
    // Ready pods become available after minReadySeconds: count them again then.
    const minReady = setSpec(set).minReadySeconds;
    if (
      typeof minReady === "number" && minReady > 0 &&
      status.availableReplicas !== status.readyReplicas
    ) {
      again = Math.min(again ?? Infinity, minReady * 1000);
    }
    // Pods name their revision in controller-revision-hash.
    const inUse = new Set([current, update].map((r) => r.metadata.name!));
    for (const p of ctx.pods) inUse.add(p.metadata.labels?.[REVISION_HASH_LABEL] ?? "");
    const limit = setSpec(set).revisionHistoryLimit;
    const keep = typeof limit === "number" ? limit : 10;
    await truncateHistory(revStore, revisions, (r) => inUse.has(r.metadata.name!), keep);
    return again;
  }

  async #writeStatus(set: KubeObject, status: Record<string, unknown>): Promise<void> {
    if (deepEqual(status, set.status ?? {})) return;
    try {
      await this.#store("apps", "statefulsets").guaranteedUpdate(
        set.metadata.namespace!,
        set.metadata.name!,
        (c) => c && c.metadata.uid === set.metadata.uid ? { ...c, status } : undefined,
        {},
        { subresource: "status" },
      );
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 404)) throw err;
    }
  }
}
