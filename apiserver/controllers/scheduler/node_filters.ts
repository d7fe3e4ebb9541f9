/**
 * The filters that read only the pod and one node: NodeUnschedulable, NodeName,
 * TaintToleration and NodePorts, with kube's reasons.
 *
 * @module
 */
import { isObject } from "../../../shared/json/is_object.ts";
import { type FilterPlugin, unresolvable, unschedulable } from "./filter.ts";
import type { HostPort, PodInfo, Taint } from "./pod_info.ts";

type Obj = Record<string, unknown>;

/** The taint every node gets while `spec.unschedulable` is set. */
export const TAINT_UNSCHEDULABLE = "node.kubernetes.io/unschedulable";

/** kube's reasons. */
export const REASON_UNSCHEDULABLE = "node(s) were unschedulable";
export const REASON_NODE_NAME = "node(s) didn't match the requested node name";
export const REASON_PORTS = "node(s) didn't have free ports for the requested pod ports";

/** The pod's tolerations. */
export function tolerationsOf(pod: PodInfo): Obj[] {
  return Array.isArray(pod.spec.tolerations) ? pod.spec.tolerations.filter(isObject) : [];
}

/** Whether `toleration` tolerates `taint` (kube's `Toleration.ToleratesTaint`). */
export function tolerates(toleration: Obj, taint: Taint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  const key = toleration.key ?? "";
  if (key !== taint.key && !(key === "" && toleration.operator === "Exists")) return false;
  if (toleration.operator === "Exists") return true;
  if (toleration.operator && toleration.operator !== "Equal") return false;
  return (toleration.value ?? "") === (taint.value ?? "");
}

/** The first taint with one of `effects` that no toleration tolerates. */
export function untoleratedTaint(
  taints: readonly Taint[],
  tolerations: readonly Obj[],
  effects: readonly string[],
): Taint | undefined {
  return taints.find((t) =>
    effects.includes(t.effect) && !tolerations.some((tol) => tolerates(tol, t))
  );
}

/** NodeUnschedulable: a cordoned node takes only pods that tolerate its unschedulable taint. */
export const nodeUnschedulable: FilterPlugin = {
  name: "NodeUnschedulable",
  prepare(pod) {
    const tolerated = tolerationsOf(pod).some((t) =>
      tolerates(t, { key: TAINT_UNSCHEDULABLE, effect: "NoSchedule" })
    );
    return (node) =>
      node.unschedulable && !tolerated ? unresolvable(REASON_UNSCHEDULABLE) : undefined;
  },
};

/** NodeName: a pod naming a node fits only there. */
export const nodeName: FilterPlugin = {
  name: "NodeName",
  prepare(pod) {
    const want = pod.nodeName;
    return (node) => want && want !== node.name ? unresolvable(REASON_NODE_NAME) : undefined;
  },
};

/** TaintToleration: every NoSchedule and NoExecute taint must be tolerated. */
export const taintToleration: FilterPlugin = {
  name: "TaintToleration",
  prepare(pod) {
    const tolerations = tolerationsOf(pod);
    return (node) => {
      const t = untoleratedTaint(node.taints, tolerations, ["NoSchedule", "NoExecute"]);
      return t
        ? unresolvable(`node(s) had untolerated taint {${t.key}: ${t.value ?? ""}}`)
        : undefined;
    };
  },
};

/** Whether two host ports collide (same protocol and port, overlapping host IPs). */
export function portsConflict(a: HostPort, b: HostPort): boolean {
  if (a.port !== b.port || a.protocol !== b.protocol) return false;
  return a.hostIP === b.hostIP || a.hostIP === "0.0.0.0" || b.hostIP === "0.0.0.0";
}

/** NodePorts: the pod's host ports must be free on the node. */
export const nodePorts: FilterPlugin = {
  name: "NodePorts",
  prepare(pod) {
    const wanted = pod.hostPorts;
    return (node) => {
      if (wanted.length === 0) return undefined;
      for (const other of node.pods.values()) {
        for (const used of other.hostPorts) {
          if (wanted.some((w) => portsConflict(w, used))) return unschedulable(REASON_PORTS);
        }
      }
      return undefined;
    };
  },
};
