/**
 * The scheduler the API server runs (kube-scheduler's default profile, in-process): it follows
 * the change feed of pods and nodes into its {@link ClusterCache}, queues every pending pod of
 * `default-scheduler` without a node, and for each finds a node (filters in kube's order,
 * scores), binds it through the `pods/binding` subresource as `system:kube-scheduler` (so
 * admission sees the binding as kube's), and records a `Scheduled` event. A pod no node takes
 * gets `PodScheduled=False` reason `Unschedulable` with kube's message and a `FailedScheduling`
 * event, may preempt lower-priority pods, and is retried with back-off when the cluster
 * changes.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import type { Logger } from "../../../shared/log/mod.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import type { ResourceRegistry } from "../../registry/resource_registry.ts";
import type { Store } from "../../registry/generic/store.ts";
import type { ChangeEvent, KeyValue } from "../../storage/interface.ts";
import type { ChangeFeed } from "../../watch/change_feed.ts";
import { ClusterCache } from "./cluster_cache.ts";
import { EventRecorder, SCHEDULER_NAME } from "./event_recorder.ts";
import type { FilterPlugin } from "./filter.ts";
import { defaultFilters, findNode, fitErrorMessage } from "./find_node.ts";
import type { PodInfo } from "./pod_info.ts";
import { preempt, type PreemptionCandidate } from "./preemption.ts";
import { type QueueTiming, SchedulingQueue } from "./scheduling_queue.ts";
import { setUnschedulable } from "./pod_status.ts";
import { SCHEDULER_USER } from "./scheduler_user.ts";

const PODS = "/registry/core/pods/";
const NODES = "/registry/core/nodes/";
/** Most bindings in flight at once. */
const MAX_BINDINGS = 64;

/** Options of the scheduler. */
export interface SchedulerOptions {
  registry: ResourceRegistry;
  /** The change feed it follows (started). */
  feed: ChangeFeed;
  logger?: Logger;
  timing?: QueueTiming;
  /** Ties between equal scores are broken with it (default Math.random). */
  random?: () => number;
}

/** Whether a pod waits for this scheduler. */
function isPending(pod: PodInfo): boolean {
  return !pod.nodeName && pod.schedulerName === SCHEDULER_NAME && !pod.terminating &&
    !pod.finished;
}

/** The scheduler. */
export class Scheduler {
  readonly #opts: SchedulerOptions;
  readonly #cache = new ClusterCache();
  readonly #queue: SchedulingQueue;
  readonly #filters: FilterPlugin[] = defaultFilters();
  readonly #events: EventRecorder;
  /** The last FailedScheduling message recorded per pod (repeats are not recorded again). */
  readonly #lastFailure = new Map<string, string>();
  /** Bindings in flight (kube's binding cycles, run beside the next pods' scheduling). */
  readonly #binding = new Map<string, Promise<void>>();
  /** Pods assumed on a node while their binding is in flight or not yet seen in the feed. */
  readonly #assumed = new Map<string, string>();
  #unsubscribe?: () => void;

  constructor(opts: SchedulerOptions) {
    this.#opts = opts;
    this.#queue = new SchedulingQueue(
      (key) => this.scheduleOne(key),
      (key, err) => opts.logger?.error("scheduling failed", { pod: key, err: String(err) }),
      opts.timing,
    );
    this.#events = new EventRecorder(
      () => opts.registry.lookup("", "v1", "events"),
      SCHEDULER_USER,
    );
  }

  /** Starts following pods and nodes; resolves once the initial state is cached. */
  async start(): Promise<void> {
    if (this.#unsubscribe) return;
    this.#unsubscribe = await this.#opts.feed.follow([PODS, NODES], {
      reset: (items: KeyValue[]) => this.#reset(items),
      changes: (events: ChangeEvent[]) => this.#changes(events),
    });
  }

  /** Stops and waits for the attempt in progress. */
  async stop(): Promise<void> {
    this.#unsubscribe?.();
    await this.#queue.stop();
    await Promise.all(this.#binding.values());
  }

  /** Resolves when no pod is being scheduled, queued to be, or being bound. */
  async idle(): Promise<void> {
    for (;;) {
      await this.#queue.idle();
      if (this.#binding.size === 0) return;
      await Promise.all(this.#binding.values());
    }
  }

  #reset(items: KeyValue[]): void {
    this.#cache.clear();
    for (const kv of items.filter((i) => i.key.startsWith(NODES))) {
      this.#cache.setNode(kv.key.slice(NODES.length), JSON.parse(kv.value));
    }
    for (const kv of items.filter((i) => i.key.startsWith(PODS))) this.#setPod(kv.key, kv.value);
    this.#queue.clusterChanged();
  }

  #changes(events: ChangeEvent[]): void {
    let changed = false;
    for (const e of events) {
      const obj = e.type === "DELETED" ? undefined : (e.decoded ?? JSON.parse(e.value));
      if (e.key.startsWith(NODES)) {
        this.#cache.setNode(e.key.slice(NODES.length), obj as KubeObject | undefined);
        changed = true;
      } else if (e.key.startsWith(PODS)) {
        const before = this.#cache.pod(podKey(e.key));
        const after = this.#setPod(e.key, obj as KubeObject | undefined);
        // A pod that leaves a node, or is bound or deleted, may make room or a new domain.
        if (before?.nodeName || after?.nodeName || !after) changed = true;
      }
    }
    if (changed) this.#queue.clusterChanged();
  }

  #setPod(key: string, obj: KubeObject | string | undefined): PodInfo | undefined {
    const k = podKey(key);
    const value = typeof obj === "string" ? JSON.parse(obj) as KubeObject : obj;
    const before = this.#cache.pod(k);
    const info = this.#cache.setPod(k, value);
    const assumedOn = this.#assumed.get(k);
    if (info && !info.nodeName && assumedOn && !info.terminating) {
      this.#cache.assume(info, assumedOn); // an older write than our binding: keep the node
      return info;
    }
    this.#assumed.delete(k);
    if (info && isPending(info)) {
      // A status-only change (such as our own condition) does not retry a waiting pod.
      if (!(before && sameScheduling(before, info) && this.#queue.isWaiting(k))) {
        this.#queue.add(k);
      }
    } else {
      this.#queue.forget(k);
      this.#lastFailure.delete(k);
    }
    return info;
  }

  /** One scheduling attempt for the pod with key `<namespace>/<name>`. */
  async scheduleOne(key: string): Promise<void> {
    const pod = this.#cache.pod(key);
    if (!pod || !isPending(pod)) return;
    const changesAtStart = this.#queue.changes;
    const nodes = this.#cache.nodes();
    const found = findNode(pod, nodes, this.#filters, this.#opts.random);
    if (found.node) {
      await this.#startBinding(pod, found.node.name);
      return;
    }
    let postFilter: string | undefined;
    if (nodes.length > 0) {
      const result = preempt(pod, nodes, found.rejections, this.#filters);
      if (result.candidate) await this.#evict(pod, result.candidate);
      else postFilter = result.message;
    }
    const message = fitErrorMessage(nodes.length, found.rejections, postFilter);
    this.#queue.failed(key, changesAtStart);
    await this.#reportUnschedulable(pod, message);
  }

  /**
   * Assumes the pod on the node in the cache, so the next pods see it there, and binds it in
   * the background (at most MAX_BINDINGS at once); a failed binding forgets the assumption and
   * backs the pod off.
   */
  async #startBinding(pod: PodInfo, nodeName: string): Promise<void> {
    while (this.#binding.size >= MAX_BINDINGS) await Promise.race(this.#binding.values());
    this.#cache.assume(pod, nodeName);
    this.#assumed.set(pod.key, nodeName);
    const cycle = this.#bind(pod, nodeName).then((ok) => {
      if (ok) return;
      this.#assumed.delete(pod.key);
      const current = this.#cache.pod(pod.key);
      if (current?.uid === pod.uid) this.#cache.setPod(pod.key, current.object);
      this.#queue.failed(pod.key, -1); // straight to back-off
    }).catch((err) =>
      this.#opts.logger?.error("binding cycle failed", { pod: pod.key, err: String(err) })
    ).finally(() => this.#binding.delete(pod.key));
    this.#binding.set(pod.key, cycle);
  }

  /** Binds through `pods/binding`; answers whether it did. */
  async #bind(pod: PodInfo, nodeName: string): Promise<boolean> {
    const binding = this.#pods().def.subresources?.find((s) => s.name === "binding");
    try {
      await binding!.create!({
        namespace: pod.namespace,
        name: pod.name,
        body: {
          apiVersion: "v1",
          kind: "Binding",
          metadata: { name: pod.name, namespace: pod.namespace, uid: pod.uid },
          target: { apiVersion: "v1", kind: "Node", name: nodeName },
        } as unknown as KubeObject,
        user: SCHEDULER_USER,
        dryRun: false,
        query: new URLSearchParams(),
      });
    } catch (err) {
      // Gone, or bound by someone else: the feed brings the news.
      if (err instanceof StatusError && (err.code === 404 || err.code === 409)) return true;
      this.#opts.logger?.warn("binding failed", { pod: pod.key, node: nodeName, err: String(err) });
      return false;
    }
    this.#queue.forget(pod.key);
    this.#lastFailure.delete(pod.key);
    await this.#record(pod.object, {
      type: "Normal",
      reason: "Scheduled",
      action: "Binding",
      message: `Successfully assigned ${pod.namespace}/${pod.name} to ${nodeName}`,
    });
    return true;
  }

  /** Deletes the victims and nominates the node for the pod (kube's DefaultPreemption). */
  async #evict(pod: PodInfo, candidate: PreemptionCandidate): Promise<void> {
    const node = candidate.node.name;
    for (const victim of candidate.victims) {
      await this.#record(victim.object, {
        type: "Normal",
        reason: "Preempted",
        action: "Preempting",
        message: `Preempted by pod ${pod.uid} on node ${node}`,
      });
      await this.#pods().delete(victim.namespace, victim.name, {}, { user: SCHEDULER_USER })
        .catch((err) => {
          if (!(err instanceof StatusError && err.code === 404)) throw err;
        });
    }
    await setUnschedulable(this.#pods(), pod, undefined, node);
  }

  async #reportUnschedulable(pod: PodInfo, message: string): Promise<void> {
    try {
      await setUnschedulable(this.#pods(), pod, message);
    } catch (err) {
      if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
      return;
    }
    if (this.#lastFailure.get(pod.key) === message) return;
    this.#lastFailure.set(pod.key, message);
    await this.#record(pod.object, {
      type: "Warning",
      reason: "FailedScheduling",
      action: "Scheduling",
      message,
    });
  }

  async #record(pod: KubeObject, note: Parameters<EventRecorder["record"]>[1]): Promise<void> {
    await this.#events.record(pod, note).catch((err) =>
      this.#opts.logger?.warn("event not recorded", { reason: note.reason, err: String(err) })
    );
  }

  #pods(): Store {
    return this.#opts.registry.lookup("", "v1", "pods")!;
  }
}

/** Whether two versions of a pod ask the same of the scheduler (spec and labels). */
function sameScheduling(a: PodInfo, b: PodInfo): boolean {
  return a.uid === b.uid && JSON.stringify(a.spec) === JSON.stringify(b.spec) &&
    JSON.stringify(a.labels) === JSON.stringify(b.labels);
}

/** `<namespace>/<name>` of a pod's storage key. */
function podKey(key: string): string {
  return key.slice(PODS.length);
}
