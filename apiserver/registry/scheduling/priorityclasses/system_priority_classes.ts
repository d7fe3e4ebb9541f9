/**
 * The system PriorityClasses every cluster has, created at server start as kube-apiserver's
 * `scheduling/bootstrap-system-priority-classes` post-start hook does.
 *
 * @module
 */
import { StatusError } from "../../../../shared/errors/status_error.ts";
import type { Store } from "../../generic/store.ts";

/** One system priority class. */
export interface SystemPriorityClass {
  name: string;
  value: number;
  description: string;
}

/** The value of system-cluster-critical (twice the highest user-definable priority). */
const SYSTEM_CRITICAL_PRIORITY = 2_000_000_000;

/** system-node-critical and system-cluster-critical, as Kubernetes defines them. */
export const SYSTEM_PRIORITY_CLASSES: readonly SystemPriorityClass[] = [
  {
    name: "system-node-critical",
    value: SYSTEM_CRITICAL_PRIORITY + 1000,
    description: "Used for system critical pods that must not be moved from their current node.",
  },
  {
    name: "system-cluster-critical",
    value: SYSTEM_CRITICAL_PRIORITY,
    description:
      "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.",
  },
];

/** Creates the system priority classes that are missing (an existing one is left as it is). */
export async function ensureSystemPriorityClasses(priorityClasses: Store): Promise<void> {
  for (const c of SYSTEM_PRIORITY_CLASSES) {
    try {
      await priorityClasses.create("", {
        apiVersion: "scheduling.k8s.io/v1",
        kind: "PriorityClass",
        metadata: { name: c.name },
        value: c.value,
        description: c.description,
      });
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 409)) throw err;
    }
  }
}
