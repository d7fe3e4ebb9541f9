/**
 * The shape of the scheduler's filter plugins: each is prepared once per pod and scheduling
 * cycle (kube's PreFilter, where it counts what it needs over every node) and then asked about
 * each node (kube's Filter). A node a plugin rejects gets the plugin's reasons; a rejection
 * preemption cannot help with is `unresolvable` (kube's UnschedulableAndUnresolvable).
 *
 * @module
 */
import type { NodeInfo, PodInfo } from "./pod_info.ts";

/** Why a node does not fit. */
export interface Rejection {
  reasons: string[];
  /** Removing pods from the node would not help (kube's UnschedulableAndUnresolvable). */
  unresolvable: boolean;
}

/** A filter plugin prepared for one pod: answers a rejection, or undefined when the node fits. */
export type NodeCheck = (node: NodeInfo) => Rejection | undefined;

/** A filter plugin. */
export interface FilterPlugin {
  /** kube's plugin name (e.g. `TaintToleration`). */
  name: string;
  /** Prepares the check of `pod` over the cluster's `nodes`. */
  prepare(pod: PodInfo, nodes: readonly NodeInfo[]): NodeCheck;
}

/** A rejection that preemption can resolve. */
export function unschedulable(...reasons: string[]): Rejection {
  return { reasons, unresolvable: false };
}

/** A rejection that preemption cannot resolve. */
export function unresolvable(...reasons: string[]): Rejection {
  return { reasons, unresolvable: true };
}
