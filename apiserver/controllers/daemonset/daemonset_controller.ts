/**
 * The daemonset controller (kube's `daemonset-controller`): one pod of each DaemonSet on every
 * node that should run it (see daemon_pods.ts), created with a required affinity to that node
 * and bound by the scheduler; pods on nodes that may no longer run them and failed pods are
 * deleted; templates are versioned as ControllerRevisions (`controller-revision-hash`); the
 * RollingUpdate strategy replaces old pods within `maxUnavailable`/`maxSurge`, OnDelete only
 * when deleted; status counts as kube's. Events are kube's (`SuccessfulCreate`,
 * `SuccessfulDelete`, `FailedDaemonPod`).
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import type { Logger } from "../../../shared/log/mod.ts";
import { deepEqual } from "../../../shared/json/deep_equal.ts";
import { isObject } from "../../../shared/json/is_object.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import { type Clock, systemClock } from "../../registry/generic/clock.ts";
import type { ResourceRegistry } from "../../registry/resource_registry.ts";
import type { Store } from "../../registry/generic/store.ts";
import type { ChangeFeed } from "../../watch/change_feed.ts";
import { ControllerEvents } from "../workloads/controller_events.ts";
import { controllerKeyOf, KeyedLoop, splitKey } from "../workloads/keyed_loop.ts";
import {
  currentRevision,
  REVISION_HASH_LABEL,
  truncateHistory,
} from "../workloads/controller_revisions.ts";
import { daemonPodNode, newDaemonPod, nodePlacement } from "./daemon_pods.ts";
import { type NodeState, planDaemonPods } from "./daemon_plan.ts";

const DAEMONSETS = "/registry/apps/daemonsets/";
const PODS = "/registry/core/pods/";
const NODES = "/registry/core/nodes/";
/** The key that stands for "every DaemonSet" (a node changed). */
const ALL = "*";

/** Options of the controller. */
export interface DaemonSetControllerOptions {
  registry: ResourceRegistry;
  feed: ChangeFeed;
  clock?: Clock;
  logger?: Logger;
}

/** Runs DaemonSets. */
export class DaemonSetController {
  readonly #opts: DaemonSetControllerOptions;
  readonly #clock: Clock;
  readonly #loop: KeyedLoop;
  readonly #events: ControllerEvents;

  constructor(opts: DaemonSetControllerOptions) {
    this.#opts = opts;
    this.#clock = opts.clock ?? systemClock;
    this.#events = new ControllerEvents(
      () => opts.registry.lookup("", "v1", "events"),
      "daemonset-controller",
      this.#clock,
      opts.logger,
    );
    this.#loop = new KeyedLoop({
      name: "daemonset controller",
      feed: opts.feed,
      prefixes: [DAEMONSETS, PODS, NODES],
      keysOf: (key, obj) => {
        if (key.startsWith(NODES)) return [ALL];
        if (key.startsWith(DAEMONSETS)) return [`${obj.metadata.namespace}/${obj.metadata.name}`];
        const owner = controllerKeyOf(obj, "DaemonSet");
        return owner ? [owner] : [];
      },
      sync: (key) => key === ALL ? this.#queueAll() : this.sync(key),
      resyncKeys: () => Promise.resolve([ALL]),
      logger: opts.logger,
    });
  }

  /** Starts following DaemonSets, pods and nodes. */
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

  async #queueAll(): Promise<undefined> {
    const list = await this.#store("apps", "daemonsets").list("", { plan: { mode: "latest" } });
    for (const ds of list.items) this.#loop.add(`${ds.metadata.namespace}/${ds.metadata.name}`);
    return undefined;
  }

  /** Syncs the DaemonSet `<namespace>/<name>`; answers when it wants to run again (ms). */
  async sync(key: string): Promise<number | undefined> {
    const [ns, name] = splitKey(key);
    const ds = await this.#store("apps", "daemonsets").get(ns, name).catch(() => undefined);
    if (!ds || ds.metadata.deletionTimestamp) return undefined;
    const revisions = this.#store("apps", "controllerrevisions");
    const { revision, revisions: all } = await currentRevision(
      revisions,
      ds,
      "apps/v1",
      "DaemonSet",
    );
    const hash = revision.metadata.labels![REVISION_HASH_LABEL];
    const nodes = (await this.#store("", "nodes").list("", { plan: { mode: "latest" } })).items;
    const pods = (await this.#store("", "pods").list(ns, { plan: { mode: "latest" } })).items
      .filter((p) =>
        (p.metadata.ownerReferences ?? []).some((r) => r.controller && r.uid === ds.metadata.uid)
      );
    const template = newDaemonPod(ds, hash);
    const states: NodeState[] = nodes.map((node) => ({
      name: node.metadata.name!,
      ...nodePlacement(template, node),
      pods: pods.filter((p) => daemonPodNode(p) === node.metadata.name),
    }));
    const now = this.#clock.now();
    const plan = planDaemonPods(ds, hash, states, now);
    // Unscheduled pods meant for a node that no longer exists go too (kube's
    // getUnscheduledPodsWithoutNode); bound ones are the pod GC's.
    const names = new Set(states.map((n) => n.name));
    plan.delete.push(
      ...pods.filter((p) =>
        !(p.spec as { nodeName?: string }).nodeName && !p.metadata.deletionTimestamp &&
        !names.has(daemonPodNode(p) ?? "")
      ),
    );
    for (const pod of plan.failed) {
      await this.#events.warning(
        ds,
        "FailedDaemonPod",
        `Found failed daemon pod ${ns}/${pod.metadata.name} on node ${
          daemonPodNode(pod)
        }, will try to kill it`,
      );
    }
    for (const pod of [...plan.failed, ...plan.delete]) await this.#deletePod(ds, pod);
    for (const node of plan.create) await this.#createPod(ds, hash, node);
    await this.#writeStatus(ds, plan.status);
    const inUse = new Set([
      hash,
      ...pods.map((p) => p.metadata.labels?.[REVISION_HASH_LABEL] ?? ""),
    ]);
    const limit = isObject(ds.spec) && typeof ds.spec.revisionHistoryLimit === "number"
      ? ds.spec.revisionHistoryLimit
      : 10;
    await truncateHistory(
      revisions,
      all,
      (r) => inUse.has(r.metadata.labels?.[REVISION_HASH_LABEL] ?? ""),
      limit,
    );
    return plan.again;
  }

  async #createPod(ds: KubeObject, hash: string, node: string): Promise<void> {
    try {
      const pod = await this.#store("", "pods").create(
        ds.metadata.namespace!,
        newDaemonPod(ds, hash, node),
      );
      await this.#events.normal(ds, "SuccessfulCreate", `Created pod: ${pod.metadata.name}`);
    } catch (err) {
      if (!(err instanceof StatusError)) throw err;
      await this.#events.warning(ds, "FailedCreate", `Error creating: ${err.message}`);
    }
  }

  async #deletePod(ds: KubeObject, pod: KubeObject): Promise<void> {
    try {
      await this.#store("", "pods").delete(pod.metadata.namespace!, pod.metadata.name!, {
        preconditions: { uid: pod.metadata.uid },
      });
      await this.#events.normal(ds, "SuccessfulDelete", `Deleted pod: ${pod.metadata.name}`);
    } catch (err) {
      if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
    }
  }

  async #writeStatus(ds: KubeObject, status: Record<string, unknown>): Promise<void> {
    const next: Record<string, unknown> = { ...status, observedGeneration: ds.metadata.generation };
    const cur = isObject(ds.status) ? ds.status : {};
    if (typeof cur.collisionCount === "number") next.collisionCount = cur.collisionCount;
    if (deepEqual(next, cur)) return;
    await this.#store("apps", "daemonsets").guaranteedUpdate(
      ds.metadata.namespace!,
      ds.metadata.name!,
      (c) => c && c.metadata.uid === ds.metadata.uid ? { ...c, status: next } : undefined,
      {},
      { subresource: "status" },
    );
  }
}
