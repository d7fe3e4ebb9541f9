/**
 * The pods of a Job as kube's job controller sees them: active, terminating, succeeded and
 * failed (a deleted pod that never succeeded counts as failed unless `podReplacementPolicy` is
 * `Failed`), its completion index, and new pods made from the template with the tracking
 * finalizer and, for Indexed jobs, the completion index annotation and label, the
 * `JOB_COMPLETION_INDEX` variable and the `<job>-<index>` hostname.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { isObject } from "../../../shared/json/is_object.ts";
import { controllerRef, podFromTemplate } from "../workloads/pod_from_template.ts";

/** The finalizer that keeps a pod until its Job counted it. */
export const JOB_TRACKING_FINALIZER = "batch.kubernetes.io/job-tracking";
/** The annotation and label of an Indexed Job's pod's index. */
export const COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index";

type Obj = Record<string, unknown>;

/** The phase of a pod. */
export function phaseOf(pod: KubeObject): string {
  return isObject(pod.status) ? String(pod.status.phase ?? "") : "";
}

/** Whether the pod still has the tracking finalizer (it is not counted yet). */
export function isTracked(pod: KubeObject): boolean {
  return (pod.metadata.finalizers ?? []).includes(JOB_TRACKING_FINALIZER);
}

/** Whether the pod is terminal or being deleted. */
export function isTerminating(pod: KubeObject): boolean {
  const phase = phaseOf(pod);
  return !!pod.metadata.deletionTimestamp && phase !== "Succeeded" && phase !== "Failed";
}

/** Whether the pod counts as failed for `job` (kube's `isPodFailed`). */
export function isPodFailed(pod: KubeObject, job: KubeObject): boolean {
  const phase = phaseOf(pod);
  if (phase === "Failed") return true;
  if (spec(job).podReplacementPolicy === "Failed") return false;
  return !!pod.metadata.deletionTimestamp && phase !== "Succeeded";
}

/** Whether the pod runs or waits to (not terminal, not being deleted). */
export function isActive(pod: KubeObject): boolean {
  const phase = phaseOf(pod);
  return phase !== "Succeeded" && phase !== "Failed" && !pod.metadata.deletionTimestamp;
}

/** Whether the pod's Ready condition is True. */
export function isReady(pod: KubeObject): boolean {
  const conditions = isObject(pod.status) && Array.isArray(pod.status.conditions)
    ? pod.status.conditions as Obj[]
    : [];
  return conditions.some((c) => c.type === "Ready" && c.status === "True");
}

/** The completion index of an Indexed Job's pod, or undefined. */
export function indexOf(pod: KubeObject, completions: number): number | undefined {
  const text = pod.metadata.annotations?.[COMPLETION_INDEX] ??
    pod.metadata.labels?.[COMPLETION_INDEX];
  if (text === undefined || !/^[0-9]+$/.test(text)) return undefined;
  const n = Number(text);
  return n < completions ? n : undefined;
}

function spec(job: KubeObject): Obj {
  return isObject(job.spec) ? job.spec : {};
}

/** A new pod of the Job (with `index` for Indexed jobs, and its failures so far). */
export function newJobPod(job: KubeObject, index?: number, failures?: number): KubeObject {
  const ref = controllerRef(job, "batch/v1", "Job");
  if (index === undefined) {
    return podFromTemplate(spec(job).template, job, ref, { finalizers: [JOB_TRACKING_FINALIZER] });
  }
  const pod = podFromTemplate(spec(job).template, job, ref, {
    finalizers: [JOB_TRACKING_FINALIZER],
    annotations: {
      [COMPLETION_INDEX]: String(index),
      ...(typeof spec(job).backoffLimitPerIndex === "number"
        ? { "batch.kubernetes.io/job-index-failure-count": String(failures ?? 0) }
        : {}),
    },
    labels: { [COMPLETION_INDEX]: String(index) },
  });
  pod.metadata.generateName = `${job.metadata.name}-${index}-`;
  const podSpec = pod.spec as Obj;
  podSpec.hostname ??= `${job.metadata.name}-${index}`;
  for (const field of ["containers", "initContainers"]) {
    for (const c of Array.isArray(podSpec[field]) ? podSpec[field] as Obj[] : []) {
      const env = Array.isArray(c.env) ? c.env as Obj[] : [];
      if (env.some((e) => e.name === "JOB_COMPLETION_INDEX")) continue;
      c.env = [...env, {
        name: "JOB_COMPLETION_INDEX",
        valueFrom: {
          fieldRef: {
            apiVersion: "v1",
            fieldPath: `metadata.annotations['${COMPLETION_INDEX}']`,
          },
        },
      }];
    }
  }
  return pod;
}
