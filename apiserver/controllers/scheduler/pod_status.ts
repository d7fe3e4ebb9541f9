/**
 * What the scheduler writes to a pod's status when it cannot bind it: the `PodScheduled`
 * condition False with reason `Unschedulable` and kube's message, and `nominatedNodeName`
 * after a preemption, through the status subresource.
 *
 * @module
 */
import { isObject } from "../../../shared/json/is_object.ts";
import type { Store } from "../../registry/generic/store.ts";
import type { PodInfo } from "./pod_info.ts";
import { SCHEDULER_USER } from "./scheduler_user.ts";

type Obj = Record<string, unknown>;

function now(): string {
  return new Date().toISOString().replace(/\.\d+Z$/, "Z");
}

/**
 * Sets `PodScheduled=False` (reason Unschedulable, `message` when given) and, when given,
 * `status.nominatedNodeName`; writes nothing when both are already so.
 */
export async function setUnschedulable(
  pods: Store,
  pod: PodInfo,
  message: string | undefined,
  nominatedNode?: string,
): Promise<void> {
  await pods.guaranteedUpdate(
    pod.namespace,
    pod.name,
    (current) => {
      if (!current || current.metadata.uid !== pod.uid) return undefined;
      const spec = isObject(current.spec) ? current.spec : {};
      if (spec.nodeName) return undefined;
      const status: Obj = isObject(current.status) ? current.status : (current.status = {});
      let changed = false;
      if (nominatedNode && status.nominatedNodeName !== nominatedNode) {
        status.nominatedNodeName = nominatedNode;
        changed = true;
      }
      if (message !== undefined) {
        const conds = Array.isArray(status.conditions) ? status.conditions.filter(isObject) : [];
        const old = conds.find((c) => c.type === "PodScheduled");
        if (old?.status !== "False" || old.reason !== "Unschedulable" || old.message !== message) {
          const cond = {
            type: "PodScheduled",
            status: "False",
            lastProbeTime: null,
            lastTransitionTime: old?.status === "False" ? old.lastTransitionTime : now(),
            reason: "Unschedulable",
            message,
          };
          status.conditions = [...conds.filter((c) => c !== old), cond];
          changed = true;
        }
      }
      return changed ? current : undefined;
    },
    {},
    { subresource: "status", user: SCHEDULER_USER },
  );
}
