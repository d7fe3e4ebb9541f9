/**
 * The taint eviction controller (kube's `taint-eviction-controller`, the NoExecute taint
 * manager): a pod on a node with a NoExecute taint it does not tolerate is deleted at once; a
 * pod that tolerates every such taint, some for only `tolerationSeconds`, is deleted when the
 * shortest of those runs out, counted from when the controller first saw it tainted (the
 * DefaultTolerationSeconds admission gives every pod 300 s for the not-ready and unreachable
 * taints). Before deleting, it adds the `DisruptionTarget` condition (`DeletionByTaintManager`)
 * and records kube's `TaintManagerEviction` event; an eviction cancelled because the taints went
 * away is recorded too.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import type { Logger } from "../../../shared/log/mod.ts";
import { isObject } from "../../../shared/json/is_object.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import { type Clock, rfc3339, systemClock } from "../../registry/generic/clock.ts";
import type { ResourceRegistry } from "../../registry/resource_registry.ts";
import type { Store } from "../../registry/generic/store.ts";
import type { ChangeFeed } from "../../watch/change_feed.ts";
import { ControllerEvents } from "../workloads/controller_events.ts";
import { KeyedLoop, splitKey } from "../workloads/keyed_loop.ts";
import { tolerates } from "../scheduler/node_filters.ts";
import type { Taint } from "../scheduler/pod_info.ts";

const PODS = "/registry/core/pods/";
const NODES = "/registry/core/nodes/";

type Obj = Record<string, unknown>;

/** Options of the controller. */
export interface TaintEvictionOptions {
  registry: ResourceRegistry;
  feed: ChangeFeed;
  clock?: Clock;
  logger?: Logger;
}

/** The NoExecute taints of a node. */
export function noExecuteTaints(node: KubeObject | undefined): Taint[] {
  const spec = node && isObject(node.spec) ? node.spec : {};
  const taints = Array.isArray(spec.taints) ? spec.taints as Obj[] : [];
  return taints.filter((t) => t.effect === "NoExecute").map((t) => ({
    key: String(t.key ?? ""),
    value: typeof t.value === "string" ? t.value : undefined,
    effect: "NoExecute",
  }));
}

/**
 * How long the pod may stay on a node with `taints` (ms): 0 when a taint is not tolerated,
 * Infinity when no toleration in use limits it.
 */
export function tolerationTime(pod: KubeObject, taints: Taint[]): number {
  const spec = isObject(pod.spec) ? pod.spec : {};
  const tolerations = Array.isArray(spec.tolerations) ? spec.tolerations as Obj[] : [];
  let min = Infinity;
  for (const taint of taints) {
    const used = tolerations.filter((t) => tolerates(t, taint));
    if (used.length === 0) return 0;
    for (const t of used) {
      if (typeof t.tolerationSeconds === "number") {
        min = Math.min(min, Math.max(0, t.tolerationSeconds) * 1000);
      }
    }
  }
  return min;
}

/** Deletes pods from nodes whose NoExecute taints they do not tolerate (long enough). */
export class TaintEvictionController {
  readonly #opts: TaintEvictionOptions;
  readonly #clock: Clock;
  readonly #loop: KeyedLoop;
  readonly #events: ControllerEvents;
  /** The pods on each node, and the node of each pod, from the feed. */
  readonly #podsOn = new Map<string, Set<string>>();
  readonly #nodeOf = new Map<string, string>();
  /** Evictions scheduled, by pod key: since when the pod was seen tainted, and its uid. */
  readonly #scheduled = new Map<string, { since: number; uid: string }>();

  constructor(opts: TaintEvictionOptions) {
    this.#opts = opts;
    this.#clock = opts.clock ?? systemClock;
    this.#events = new ControllerEvents(
      () => opts.registry.lookup("", "v1", "events"),
      "taint-eviction-controller",
      this.#clock,
      opts.logger,
    );
    this.#loop = new KeyedLoop({
      name: "taint eviction controller",
      feed: opts.feed,
      prefixes: [NODES, PODS],
      keysOf: (key, obj, _old, deleted) => this.#keysOf(key, obj, deleted === true),
      sync: (key) => this.sync(key),
      logger: opts.logger,
    });
  }

  /** Starts following nodes and pods. */
  start(): Promise<void> {
    return this.#loop.start();
  }

  /** Stops and waits for the sync in progress. */
  stop(): Promise<void> {
    return this.#loop.stop();
  }

  #keysOf(key: string, obj: KubeObject, deleted: boolean): string[] {
    if (key.startsWith(NODES)) {
      return deleted ? [] : [...this.#podsOn.get(obj.metadata.name!) ?? []];
    }
    const podKey = `${obj.metadata.namespace}/${obj.metadata.name}`;
    const spec = isObject(obj.spec) ? obj.spec : {};
    const node = !deleted && typeof spec.nodeName === "string" ? spec.nodeName : "";
    const before = this.#nodeOf.get(podKey);
    if (before !== undefined && before !== node) this.#podsOn.get(before)?.delete(podKey);
    if (!node) {
      this.#nodeOf.delete(podKey);
      return this.#scheduled.has(podKey) ? [podKey] : [];
    }
    this.#nodeOf.set(podKey, node);
    if (!this.#podsOn.has(node)) this.#podsOn.set(node, new Set());
    this.#podsOn.get(node)!.add(podKey);
    return [podKey];
  }

  #store(resource: string): Store {
    return this.#opts.registry.lookup("", "v1", resource)!;
  }

  /** Evicts the pod `<namespace>/<name>` when due; answers the time left (ms). */
  async sync(key: string): Promise<number | undefined> {
    const [ns, name] = splitKey(key);
    const pod = await this.#store("pods").get(ns, name).catch(() => undefined);
    const nodeName = pod && isObject(pod.spec) ? pod.spec.nodeName : undefined;
    if (!pod || pod.metadata.deletionTimestamp || typeof nodeName !== "string" || !nodeName) {
      this.#scheduled.delete(key);
      return undefined;
    }
    const node = await this.#store("nodes").get("", nodeName).catch(() => undefined);
    const taints = noExecuteTaints(node);
    const allowed = taints.length ? tolerationTime(pod, taints) : Infinity;
    const now = this.#clock.now();
    if (allowed === Infinity) {
      const pending = this.#scheduled.get(key);
      this.#scheduled.delete(key);
      if (pending && pending.uid === pod.metadata.uid) {
        await this.#events.normal(pod, "TaintManagerEviction", `Cancelling deletion of Pod ${key}`);
      }
      return undefined;
    }
    let entry = this.#scheduled.get(key);
    if (!entry || entry.uid !== pod.metadata.uid) {
      entry = { since: now, uid: pod.metadata.uid! };
      this.#scheduled.set(key, entry);
    }
    const left = entry.since + allowed - now;
    if (left > 0) return left;
    this.#scheduled.delete(key);
    await this.#evict(pod);
    return undefined;
  }

  /** Marks the pod DisruptionTarget, records the event, and deletes it. */
  async #evict(pod: KubeObject): Promise<void> {
    const ns = pod.metadata.namespace!, name = pod.metadata.name!;
    const pods = this.#store("pods");
    try {
      await pods.guaranteedUpdate(
        ns,
        name,
        (cur) => {
          if (!cur || cur.metadata.uid !== pod.metadata.uid) return undefined;
          return { ...cur, status: withDisruptionTarget(cur.status, this.#clock.now()) };
        },
        {},
        { subresource: "status" },
      );
      await this.#events.normal(
        pod,
        "TaintManagerEviction",
        `Marking for deletion Pod ${ns}/${name}`,
      );
      await pods.delete(ns, name, { preconditions: { uid: pod.metadata.uid } });
      this.#opts.logger?.info("evicted pod from tainted node", { pod: `${ns}/${name}` });
    } catch (err) {
      if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
    }
  }
}

/** The pod status with kube's DisruptionTarget condition of the taint manager. */
function withDisruptionTarget(status: unknown, now: number): Obj {
  const s = isObject(status) ? { ...status } : {};
  const conditions = (Array.isArray(s.conditions) ? s.conditions as Obj[] : [])
    .filter((c) => c.type !== "DisruptionTarget");
  conditions.push({
    type: "DisruptionTarget",
    status: "True",
    lastProbeTime: null,
    lastTransitionTime: rfc3339(now),
    reason: "DeletionByTaintManager",
    message: "Taint manager: deleting due to NoExecute taint",
  });
  return { ...s, conditions };
}
