/**
 * What a Job sync works with (the pods store, events, the time, the failure back-off state),
 * and the small helpers the sync's parts share.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { isObject } from "../../../shared/json/is_object.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import type { Store } from "../../registry/generic/store.ts";
import type { ControllerEvents } from "../workloads/controller_events.ts";
import { isTracked, JOB_TRACKING_FINALIZER } from "./job_pods.ts";

/** Failures since the last success, and when the last was counted (for the back-off). */
export interface FailureTracking {
  sinceSuccess: number;
  lastAt: number;
}

/** What one sync works with. */
export interface JobContext {
  pods: Store;
  events: ControllerEvents;
  now: number;
  failures: FailureTracking;
  /** Failures so far per index (backoffLimitPerIndex), carried into new pods. */
  indexFailures?: Map<number, number>;
}

/** Removes the tracking finalizer from `pod` (gone already: nothing to do). */
export async function removeTrackingFinalizer(pods: Store, pod: KubeObject): Promise<void> {
  try {
    await pods.guaranteedUpdate(pod.metadata.namespace!, pod.metadata.name!, (cur) => {
      if (!cur || cur.metadata.uid !== pod.metadata.uid || !isTracked(cur)) return undefined;
      const finalizers = cur.metadata.finalizers!.filter((f) => f !== JOB_TRACKING_FINALIZER);
      return { ...cur, metadata: { ...cur.metadata, finalizers } };
    });
  } catch (err) {
    if (!(err instanceof StatusError && err.code === 404)) throw err;
  }
}

/** The job's `spec` as a record. */
export function jobSpec(job: KubeObject): Record<string, unknown> {
  return isObject(job.spec) ? job.spec : {};
}
