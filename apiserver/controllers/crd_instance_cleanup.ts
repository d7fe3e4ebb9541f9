/**
 * Deleting every instance of a deleted CustomResourceDefinition (kube's CRD finalizer
 * controller): a delete of every object through the store (admission and finalizers apply),
 * then a check that none is left, with the Terminating condition that reports the outcome.
 *
 * @module
 */
import type { Store } from "../registry/generic/store.ts";
import type { CrdCondition } from "../registry/apiextensions/customresources/crd_conditions.ts";

/** The outcome of a cleanup: done (none left), and the Terminating condition to record. */
export interface CleanupOutcome {
  done: boolean;
  condition: CrdCondition;
}

/** Deletes every instance in `store` (all namespaces); reports whether none is left. */
export async function deleteAllInstances(store: Store | undefined): Promise<CleanupOutcome> {
  if (!store) return completed();
  const all = { plan: { mode: "latest" as const } };
  try {
    await store.deleteCollection("", all, {});
  } catch (err) {
    return failed("InstanceDeletionFailed", `could not issue all deletes: ${String(err)}`);
  }
  let left: number;
  try {
    left = (await store.list("", { ...all, limit: 1 })).items.length;
  } catch (err) {
    return failed(
      "InstanceDeletionCheck",
      `could not confirm zero CustomResources remaining: ${String(err)}`,
    );
  }
  if (left > 0) {
    return {
      done: false,
      condition: {
        type: "Terminating",
        status: "True",
        reason: "InstanceDeletionInProgress",
        message: "CustomResource deletion is in progress",
      },
    };
  }
  return completed();
}

function completed(): CleanupOutcome {
  return {
    done: true,
    condition: {
      type: "Terminating",
      status: "False",
      reason: "InstanceDeletionCompleted",
      message: "removed all instances",
    },
  };
}

function failed(reason: string, message: string): CleanupOutcome {
  return { done: false, condition: { type: "Terminating", status: "True", reason, message } };
}
