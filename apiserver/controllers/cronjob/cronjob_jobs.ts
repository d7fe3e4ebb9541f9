/**
 * The Jobs of a CronJob: a new Job from `spec.jobTemplate` (kube's `getJobFromTemplate2`),
 * the object reference `status.active` lists, and the removal of finished Jobs past
 * `successfulJobsHistoryLimit` (default 3) and `failedJobsHistoryLimit` (default 1), oldest
 * first.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { isObject } from "../../../shared/json/is_object.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import type { Store } from "../../registry/generic/store.ts";
import { controllerRef } from "../workloads/pod_from_template.ts";
import type { ControllerEvents } from "../workloads/controller_events.ts";
import { jobFinishTime } from "../job/ttl_after_finished_controller.ts";
import { zoneOffset } from "./cron_next.ts";

/** The annotation with a Job's scheduled time. */
export const SCHEDULED_TIMESTAMP = "batch.kubernetes.io/cronjob-scheduled-timestamp";

/** A reference in `status.active`. */
export interface JobReference {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  uid: string;
  resourceVersion?: string;
}

/** A CronJob's status as the controller edits it. */
export interface CronStatus {
  active?: JobReference[];
  lastScheduleTime?: string;
  lastSuccessfulTime?: string;
}

/** The reference to `job` for `status.active`. */
export function jobRef(job: KubeObject): JobReference {
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    namespace: job.metadata.namespace!,
    name: job.metadata.name!,
    uid: job.metadata.uid!,
    resourceVersion: job.metadata.resourceVersion,
  };
}

/** RFC 3339 of `ms` in `zone` (`2026-01-01T12:00:00+01:00`, or `Z` at UTC). */
export function zonedRfc3339(ms: number, zone: string): string {
  const offset = zoneOffset(zone, ms);
  const wall = new Date(Math.floor(ms / 1000) * 1000 + offset).toISOString().slice(0, 19);
  if (offset === 0) return `${wall}Z`;
  const m = Math.abs(offset) / 60_000;
  const sign = offset < 0 ? "-" : "+";
  return `${wall}${sign}${String(Math.floor(m / 60)).padStart(2, "0")}:${
    String(m % 60).padStart(2, "0")
  }`;
}

/** The Job of `cj` scheduled at `scheduled`, named `name`. */
export function jobFromTemplate(
  cj: KubeObject,
  name: string,
  scheduled: number,
  zone: string,
): KubeObject {
  const spec = isObject(cj.spec) ? cj.spec : {};
  const template = isObject(spec.jobTemplate) ? structuredClone(spec.jobTemplate) : {};
  const meta = isObject(template.metadata) ? template.metadata : {};
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: {
      name,
      namespace: cj.metadata.namespace,
      labels: { ...(meta.labels as Record<string, string> ?? {}) },
      annotations: {
        ...(meta.annotations as Record<string, string> ?? {}),
        [SCHEDULED_TIMESTAMP]: zonedRfc3339(scheduled, zone),
      },
      ownerReferences: [controllerRef(cj, "batch/v1", "CronJob")],
    },
    spec: template.spec ?? {},
  };
}

function startOf(job: KubeObject): number {
  const start = isObject(job.status) ? job.status.startTime : undefined;
  const t = Date.parse(String(start ?? job.metadata.creationTimestamp ?? ""));
  return Number.isNaN(t) ? 0 : t;
}

function succeeded(job: KubeObject): boolean {
  const conditions = isObject(job.status) && Array.isArray(job.status.conditions)
    ? job.status.conditions as Record<string, unknown>[]
    : [];
  return conditions.some((c) => c.type === "Complete" && c.status === "True");
}

/** Deletes the oldest finished Jobs past the history limits. */
export async function cleanupFinished(
  cj: KubeObject,
  spec: Record<string, unknown>,
  jobs: KubeObject[],
  store: Store,
  events: ControllerEvents,
  status: CronStatus,
): Promise<void> {
  const finished = jobs.filter((j) =>
    jobFinishTime(j) !== undefined && !j.metadata.deletionTimestamp
  );
  const limits: [KubeObject[], unknown][] = [
    [finished.filter(succeeded), spec.successfulJobsHistoryLimit ?? 3],
    [finished.filter((j) => !succeeded(j)), spec.failedJobsHistoryLimit ?? 1],
  ];
  for (const [group, limit] of limits) {
    if (typeof limit !== "number") continue;
    const sorted = group.sort((a, b) => startOf(a) - startOf(b));
    for (const job of sorted.slice(0, Math.max(0, sorted.length - limit))) {
      try {
        await store.delete(job.metadata.namespace!, job.metadata.name!, {
          propagationPolicy: "Background",
        });
      } catch (err) {
        if (!(err instanceof StatusError && err.code === 404)) {
          await events.warning(cj, "FailedDelete", `Deleted job: ${String(err)}`);
          continue;
        }
      }
      status.active = status.active?.filter((r) => r.uid !== job.metadata.uid);
      if (!status.active?.length) delete status.active;
      await events.normal(cj, "SuccessfulDelete", `Deleted job ${job.metadata.name}`);
    }
  }
}
