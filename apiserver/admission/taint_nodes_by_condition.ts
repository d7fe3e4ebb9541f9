/**
 * TaintNodesByCondition, as kube's plugin: a new Node is tainted
 * `node.kubernetes.io/not-ready:NoSchedule` until the node lifecycle controller sees it Ready
 * (and removes the taint), so nothing schedules to a node before it reports.
 *
 * @module
 */
import { isObject } from "../../shared/json/is_object.ts";
import type { AdmissionPlugin } from "../registry/generic/admission.ts";

const NOT_READY = "node.kubernetes.io/not-ready";

/** Builds the plugin. */
export function taintNodesByCondition(): AdmissionPlugin {
  return {
    name: "TaintNodesByCondition",
    admit(a) {
      if (a.kind.group !== "" || a.kind.plural !== "nodes" || a.subresource) return;
      if (a.operation !== "CREATE" || !a.object) return;
      const spec = isObject(a.object.spec) ? a.object.spec : (a.object.spec = {});
      const taints = Array.isArray(spec.taints) ? spec.taints as Record<string, unknown>[] : [];
      if (taints.some((t) => t.key === NOT_READY && t.effect === "NoSchedule")) return;
      spec.taints = [...taints, { key: NOT_READY, effect: "NoSchedule" }];
    },
  };
}
