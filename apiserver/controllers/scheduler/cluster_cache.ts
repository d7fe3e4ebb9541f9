/**
 * The scheduler's cache of nodes and pods, kept from the change feed (never re-listed per
 * pod): each node with the pods bound to it and the sum of their requests, and every pod by
 * key. A binding the scheduler made is assumed at once, before the feed brings it back.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { type NodeInfo, nodeInfoOf, type PodInfo, podInfoOf } from "./pod_info.ts";
import { addInto } from "./resources.ts";

/** Nodes and pods as last seen. */
export class ClusterCache {
  readonly #nodes = new Map<string, NodeInfo>();
  readonly #pods = new Map<string, PodInfo>();
  /** Bound pods by node name (also for nodes not seen yet). */
  readonly #byNode = new Map<string, Map<string, PodInfo>>();
  #nodeList?: NodeInfo[];

  /** Every node (a cached array, rebuilt after a node changes). */
  nodes(): readonly NodeInfo[] {
    return this.#nodeList ??= [...this.#nodes.values()];
  }

  /** The node named `name`. */
  node(name: string): NodeInfo | undefined {
    return this.#nodes.get(name);
  }

  /** The pod with key `<namespace>/<name>`. */
  pod(key: string): PodInfo | undefined {
    return this.#pods.get(key);
  }

  /** Every pod. */
  pods(): IterableIterator<PodInfo> {
    return this.#pods.values();
  }

  /** Forgets everything (before a reset of the feed). */
  clear(): void {
    this.#nodes.clear();
    this.#pods.clear();
    this.#byNode.clear();
    this.#nodeList = undefined;
  }

  /** Records a node, or its deletion (`obj` undefined). */
  setNode(name: string, obj: KubeObject | undefined): void {
    this.#nodeList = undefined;
    if (!obj) {
      this.#nodes.delete(name);
      return;
    }
    const info = nodeInfoOf(obj);
    const pods = this.#byNode.get(name) ?? new Map<string, PodInfo>();
    this.#byNode.set(name, pods);
    info.pods = pods;
    for (const p of pods.values()) {
      addInto(info.requested, p.requests);
      if (p.hasAntiAffinity) info.antiAffinityPods++;
    }
    this.#nodes.set(name, info);
  }

  /** Records a pod, or its deletion (`obj` undefined); answers the new PodInfo. */
  setPod(key: string, obj: KubeObject | undefined): PodInfo | undefined {
    const old = this.#pods.get(key);
    if (old) this.#unbind(old);
    if (!obj) {
      this.#pods.delete(key);
      return undefined;
    }
    const info = podInfoOf(obj);
    this.#pods.set(key, info);
    if (info.nodeName && !info.finished) this.#bind(info, info.nodeName);
    return info;
  }

  /** Assumes `pod` bound to `nodeName` (the binding succeeded; the feed will confirm it). */
  assume(pod: PodInfo, nodeName: string): void {
    const current = this.#pods.get(pod.key);
    if (!current || current.uid !== pod.uid || current.nodeName) return;
    this.#unbind(current);
    const bound = { ...current, nodeName };
    this.#pods.set(pod.key, bound);
    this.#bind(bound, nodeName);
  }

  #bind(pod: PodInfo, nodeName: string): void {
    let pods = this.#byNode.get(nodeName);
    if (!pods) this.#byNode.set(nodeName, pods = new Map());
    pods.set(pod.key, pod);
    const node = this.#nodes.get(nodeName);
    if (node) {
      addInto(node.requested, pod.requests);
      if (pod.hasAntiAffinity) node.antiAffinityPods++;
    }
  }

  #unbind(pod: PodInfo): void {
    const pods = this.#byNode.get(pod.nodeName);
    if (!pod.nodeName || !pods?.has(pod.key)) return;
    pods.delete(pod.key);
    const node = this.#nodes.get(pod.nodeName);
    if (node) {
      addInto(node.requested, pod.requests, -1);
      if (pod.hasAntiAffinity) node.antiAffinityPods--;
    }
    if (pods.size === 0 && !node) this.#byNode.delete(pod.nodeName);
  }
}
