/**
 * The pod garbage collector (kube's pkg/controller/podgc), every 20 s: deletes the oldest
 * terminated pods beyond `--terminated-pod-gc-threshold` (12500; 0 or less keeps them all);
 * pods bound to a node that no longer exists (after the node has been missing for 40 s),
 * first marked Failed with the `DisruptionTarget` condition (reason `DeletionByPodGC`,
 * "PodGC: node no longer exists"); terminating pods that were never scheduled; and
 * terminating pods on a not-ready node tainted `node.kubernetes.io/out-of-service`. Each is
 * deleted with a zero grace period, as kube's force deletion.
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import type { Logger } from "../../shared/log/mod.ts";
import { StatusError } from "../../shared/errors/status_error.ts";
import type { ResourceRegistry } from "../registry/resource_registry.ts";
import type { Store } from "../registry/generic/store.ts";
import type { ChangeFeed } from "../watch/change_feed.ts";
import { Informer } from "./informer.ts";
import { CONTROLLER_MANAGER, controllerUser } from "./controller_identity.ts";
import { isTerminal, nodeNameOf } from "./pod_state.ts";
import { SyncLoop } from "./bootstrap/sync_loop.ts";

const PODS = "/registry/core/pods/";
const NODES = "/registry/core/nodes/";
const OUT_OF_SERVICE = "node.kubernetes.io/out-of-service";
const USER = controllerUser("pod-garbage-collector");

/** Options of the collector. */
export interface PodGcControllerOptions {
  registry: ResourceRegistry;
  feed: ChangeFeed;
  /** Terminated pods kept (default 12500; 0 or less: no limit). */
  terminatedPodThreshold?: number;
  /** Period of the collection, ms (default 20 s). */
  periodMs?: number;
  /** How long a node must be missing before its pods go, ms (default 40 s). */
  quarantineMs?: number;
  now?: () => number;
  logger?: Logger;
}

/** Deletes pods nothing else will. */
export class PodGcController {
  readonly #opts: PodGcControllerOptions;
  readonly #informer: Informer;
  readonly #loop: SyncLoop;
  /** When each missing node was first seen missing. */
  readonly #missingSince = new Map<string, number>();

  constructor(opts: PodGcControllerOptions) {
    this.#opts = opts;
    this.#informer = new Informer({ feed: opts.feed, prefixes: [PODS, NODES], handler: () => {} });
    this.#loop = new SyncLoop({
      name: "pod-garbage-collector",
      feed: opts.feed,
      prefixes: [],
      sync: async () => {
        await this.collect();
        return undefined;
      },
      periodMs: opts.periodMs ?? 20_000,
      logger: opts.logger,
    });
  }

  /** Starts: the pods and nodes are cached, then collected now and every period. */
  async start(): Promise<void> {
    await this.#informer.start();
    await this.#loop.start();
  }

  /** Stops. */
  async stop(): Promise<void> {
    await this.#loop.stop();
    this.#informer.stop();
  }

  /** One collection. */
  async collect(): Promise<void> {
    const pods = this.#informer.list(PODS);
    await this.#terminated(pods);
    await this.#orphaned(pods);
    for (const pod of pods) {
      if (!pod.metadata.deletionTimestamp) continue;
      const node = nodeNameOf(pod);
      if (!node || this.#outOfService(node)) await this.#delete(pod);
    }
  }

  async #terminated(pods: KubeObject[]): Promise<void> {
    const threshold = this.#opts.terminatedPodThreshold ?? 12_500;
    if (threshold <= 0) return;
    const terminated = pods.filter(isTerminal);
    const excess = terminated.length - threshold;
    if (excess <= 0) return;
    const created = (p: KubeObject) => Date.parse(p.metadata.creationTimestamp ?? "") || 0;
    terminated.sort((a, b) => created(a) - created(b));
    for (const pod of terminated.slice(0, excess)) await this.#delete(pod);
  }

  async #orphaned(pods: KubeObject[]): Promise<void> {
    const now = (this.#opts.now ?? Date.now)();
    const quarantine = this.#opts.quarantineMs ?? 40_000;
    const missing = new Set<string>();
    for (const pod of pods) {
      const node = nodeNameOf(pod);
      if (node && !this.#informer.get(NODES, "", node)) missing.add(node);
    }
    for (const node of this.#missingSince.keys()) {
      if (!missing.has(node)) this.#missingSince.delete(node);
    }
    for (const node of missing) {
      const since = this.#missingSince.get(node) ?? now;
      this.#missingSince.set(node, since);
      if (now - since < quarantine || await this.#nodeExists(node)) continue;
      for (const pod of pods.filter((p) => nodeNameOf(p) === node)) await this.#failAndDelete(pod);
    }
  }

  async #nodeExists(name: string): Promise<boolean> {
    try {
      await this.#store("nodes").get("", name);
      return true;
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return false;
      throw err;
    }
  }

  #outOfService(node: string): boolean {
    const n = this.#informer.get(NODES, "", node);
    if (!n) return false;
    const taints = ((n.spec ?? {}) as { taints?: { key: string }[] }).taints ?? [];
    const conds =
      ((n.status ?? {}) as { conditions?: { type: string; status: string }[] }).conditions ?? [];
    const ready = conds.find((c) => c.type === "Ready")?.status === "True";
    return !ready && taints.some((t) => t.key === OUT_OF_SERVICE);
  }

  /** Marks the pod Failed with kube's DisruptionTarget condition, then deletes it. */
  async #failAndDelete(pod: KubeObject): Promise<void> {
    const time = new Date((this.#opts.now ?? Date.now)()).toISOString().replace(/\.\d+Z$/, "Z");
    try {
      await this.#store("pods").guaranteedUpdate(
        pod.metadata.namespace!,
        pod.metadata.name!,
        (cur) => {
          if (!cur || cur.metadata.uid !== pod.metadata.uid) return undefined;
          const status = { ...(cur.status ?? {}) } as Record<string, unknown>;
          const conds = ((status.conditions ?? []) as { type: string }[]).filter((c) =>
            c.type !== "DisruptionTarget"
          );
          conds.push({
            type: "DisruptionTarget",
            status: "True",
            lastTransitionTime: time,
            reason: "DeletionByPodGC",
            message: "PodGC: node no longer exists",
          } as { type: string });
          status.conditions = conds;
          if (!isTerminal(cur)) status.phase = "Failed";
          cur.status = status;
          return cur;
        },
        {},
        { subresource: "status", user: USER, fieldManager: CONTROLLER_MANAGER },
      );
    } catch (err) {
      if (err instanceof StatusError && (err.code === 404 || err.code === 409)) return;
      throw err;
    }
    await this.#delete(pod);
  }

  async #delete(pod: KubeObject): Promise<void> {
    this.#opts.logger?.info("pod garbage collected", {
      pod: `${pod.metadata.namespace}/${pod.metadata.name}`,
    });
    await this.#store("pods").delete(pod.metadata.namespace!, pod.metadata.name!, {
      gracePeriodSeconds: 0,
      preconditions: { uid: pod.metadata.uid },
    }, { user: USER, fieldManager: CONTROLLER_MANAGER }).catch((err) => {
      if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
    });
  }

  #store(resource: string): Store {
    return this.#opts.registry.lookup("", "v1", resource)!;
  }
}
