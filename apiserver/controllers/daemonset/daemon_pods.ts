/**
 * Where a DaemonSet's pods belong and what they look like, as kube's daemon controller decides:
 * a node should run the pod when the template's node selector and required node affinity match
 * it and the pod (with the tolerations kube adds to every daemon pod) tolerates its NoSchedule
 * and NoExecute taints; a pod already there may stay while it tolerates the NoExecute ones.
 * New pods carry the `controller-revision-hash` and `pod-template-generation` labels and a
 * required node affinity to their node's name, and are bound by the scheduler.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { isObject } from "../../../shared/json/is_object.ts";
import { nodeInfoOf, podInfoOf } from "../scheduler/pod_info.ts";
import { requiredNodeAffinityMatches } from "../scheduler/node_affinity.ts";
import { untoleratedTaint } from "../scheduler/node_filters.ts";
import { controllerRef, podFromTemplate } from "../workloads/pod_from_template.ts";
import { REVISION_HASH_LABEL } from "../workloads/controller_revisions.ts";

type Obj = Record<string, unknown>;

/** The deprecated label with the DaemonSet's generation. */
export const TEMPLATE_GENERATION_LABEL = "pod-template-generation";

/** The tolerations every daemon pod gets (kube's `AddOrUpdateDaemonPodTolerations`). */
export function daemonTolerations(hostNetwork: boolean): Obj[] {
  const t = (key: string, effect: string) => ({ key, operator: "Exists", effect });
  return [
    t("node.kubernetes.io/not-ready", "NoExecute"),
    t("node.kubernetes.io/unreachable", "NoExecute"),
    t("node.kubernetes.io/disk-pressure", "NoSchedule"),
    t("node.kubernetes.io/memory-pressure", "NoSchedule"),
    t("node.kubernetes.io/pid-pressure", "NoSchedule"),
    t("node.kubernetes.io/unschedulable", "NoSchedule"),
    ...(hostNetwork ? [t("node.kubernetes.io/network-unavailable", "NoSchedule")] : []),
  ];
}

/** Adds the daemon tolerations a pod spec lacks. */
function addDaemonTolerations(spec: Obj): void {
  const own = Array.isArray(spec.tolerations) ? spec.tolerations as Obj[] : [];
  const missing = daemonTolerations(spec.hostNetwork === true).filter((d) =>
    !own.some((o) => o.key === d.key && o.effect === d.effect && o.operator === "Exists")
  );
  spec.tolerations = [...own, ...missing];
}

/** Whether the node should run the pod, and whether a pod there may keep running. */
export function nodePlacement(
  template: KubeObject,
  node: KubeObject,
): { shouldRun: boolean; shouldContinue: boolean } {
  const pod = podInfoOf(template);
  const info = nodeInfoOf(node);
  if (!requiredNodeAffinityMatches(pod, info)) return { shouldRun: false, shouldContinue: false };
  const tolerations = (pod.spec.tolerations ?? []) as Obj[];
  return {
    shouldRun: !untoleratedTaint(info.taints, tolerations, ["NoSchedule", "NoExecute"]),
    shouldContinue: !untoleratedTaint(info.taints, tolerations, ["NoExecute"]),
  };
}

/** The pod the DaemonSet would run on `nodeName` at revision `hash` (not yet bound). */
export function newDaemonPod(ds: KubeObject, hash: string, nodeName?: string): KubeObject {
  const spec = isObject(ds.spec) ? ds.spec : {};
  const pod = podFromTemplate(spec.template, ds, controllerRef(ds, "apps/v1", "DaemonSet"), {
    labels: {
      [REVISION_HASH_LABEL]: hash,
      [TEMPLATE_GENERATION_LABEL]: String(ds.metadata.generation ?? 1),
    },
  });
  const podSpec = pod.spec as Obj;
  addDaemonTolerations(podSpec);
  if (nodeName) setNodeNameAffinity(podSpec, nodeName);
  return pod;
}

/** kube's `ReplaceDaemonSetPodNodeNameNodeAffinity`: requires the node by name. */
function setNodeNameAffinity(spec: Obj, nodeName: string): void {
  const affinity = isObject(spec.affinity) ? spec.affinity : {};
  const nodeAffinity = isObject(affinity.nodeAffinity) ? affinity.nodeAffinity : {};
  nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution = {
    nodeSelectorTerms: [{
      matchFields: [{ key: "metadata.name", operator: "In", values: [nodeName] }],
    }],
  };
  spec.affinity = { ...affinity, nodeAffinity };
}

/** The node a daemon pod runs on or is meant for. */
export function daemonPodNode(pod: KubeObject): string | undefined {
  const spec = isObject(pod.spec) ? pod.spec : {};
  if (typeof spec.nodeName === "string" && spec.nodeName) return spec.nodeName;
  const affinity = isObject(spec.affinity) ? spec.affinity : {};
  const na = isObject(affinity.nodeAffinity) ? affinity.nodeAffinity : {};
  const req = isObject(na.requiredDuringSchedulingIgnoredDuringExecution)
    ? na.requiredDuringSchedulingIgnoredDuringExecution
    : {};
  for (const term of Array.isArray(req.nodeSelectorTerms) ? req.nodeSelectorTerms as Obj[] : []) {
    for (const f of Array.isArray(term.matchFields) ? term.matchFields as Obj[] : []) {
      if (f.key === "metadata.name" && Array.isArray(f.values) && f.values.length === 1) {
        return String(f.values[0]);
      }
    }
  }
  return undefined;
}

/** Whether the pod has been Ready for `minReadySeconds` at `now`. */
export function isAvailable(pod: KubeObject, minReadySeconds: number, now: number): boolean {
  const conditions = isObject(pod.status) && Array.isArray(pod.status.conditions)
    ? pod.status.conditions as Obj[]
    : [];
  const ready = conditions.find((c) => c.type === "Ready" && c.status === "True");
  if (!ready || pod.metadata.deletionTimestamp) return false;
  if (minReadySeconds <= 0) return true;
  const since = Date.parse(String(ready.lastTransitionTime ?? ""));
  return !Number.isNaN(since) && since + minReadySeconds * 1000 <= now;
}
