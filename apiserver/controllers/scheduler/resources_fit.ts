/**
 * NodeResourcesFit: the pod's requests (containers, init containers, overhead) must fit in the
 * node's allocatable minus what the pods bound to it request, and the node's pod count must
 * allow one more (kube's `fitsRequest`, with its reasons).
 *
 * @module
 */
import { type FilterPlugin, unschedulable } from "./filter.ts";
import type { NodeInfo, PodInfo } from "./pod_info.ts";

/** kube's reason when the node holds as many pods as it allows. */
export const REASON_TOO_MANY_PODS = "Too many pods";

/** The reasons the pod's requests do not fit on the node (empty: they fit). */
export function insufficientResources(pod: PodInfo, node: NodeInfo): string[] {
  const reasons: string[] = [];
  if (node.pods.size + 1 > (node.allocatable.pods ?? 0)) reasons.push(REASON_TOO_MANY_PODS);
  const first = ["cpu", "memory", "ephemeral-storage"];
  const names = [...first, ...Object.keys(pod.requests).filter((n) => !first.includes(n))];
  for (const name of names) {
    const amount = pod.requests[name] ?? 0;
    if (amount <= 0 || name === "pods") continue;
    const free = (node.allocatable[name] ?? 0) - (node.requested[name] ?? 0);
    if (amount > free) reasons.push(`Insufficient ${name}`);
  }
  return reasons;
}

/** NodeResourcesFit's filter. */
export const nodeResourcesFit: FilterPlugin = {
  name: "NodeResourcesFit",
  prepare(pod) {
    return (node) => {
      const reasons = insufficientResources(pod, node);
      return reasons.length > 0 ? unschedulable(...reasons) : undefined;
    };
  },
};
