/**
 * The cronjob controller (kube's `cronjob-controller`, v2): creates each CronJob's Jobs on
 * its schedule (in `spec.timeZone`, else the server's zone), named `<cronjob>-<scheduled time in
 * minutes>` with the `batch.kubernetes.io/cronjob-scheduled-timestamp` annotation; skips a
 * time missed by more than `startingDeadlineSeconds` (`MissSchedule`); applies the
 * concurrency policy (Allow, Forbid: `JobAlreadyActive`, Replace: the running Jobs are
 * deleted); keeps `status.active`, `lastScheduleTime` and `lastSuccessfulTime`; and deletes
 * finished Jobs past the history limits. The clock is injected; a CronJob is synced again at
 * its next activation.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import type { Logger } from "../../../shared/log/mod.ts";
import { deepEqual } from "../../../shared/json/deep_equal.ts";
import { isObject } from "../../../shared/json/is_object.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import { type Clock, rfc3339, systemClock } from "../../registry/generic/clock.ts";
import type { ResourceRegistry } from "../../registry/resource_registry.ts";
import type { Store } from "../../registry/generic/store.ts";
import type { ChangeFeed } from "../../watch/change_feed.ts";
import {
  type CronSchedule,
  isTimeZone,
  parseCronSchedule,
} from "../../registry/batch/cronjobs/cron_schedule.ts";
import { ControllerEvents } from "../workloads/controller_events.ts";
import { controllerKeyOf, KeyedLoop, keysIn, splitKey } from "../workloads/keyed_loop.ts";
import { jobFinishTime } from "../job/ttl_after_finished_controller.ts";
import { localZone, mostRecentActivation, nextActivation } from "./cron_next.ts";
import { cleanupFinished, type CronStatus, jobFromTemplate, jobRef } from "./cronjob_jobs.ts";

const CRONJOBS = "/registry/batch/cronjobs/";
const JOBS = "/registry/batch/jobs/";
/** kube requeues a little after the next activation. */
const NEXT_DELTA_MS = 100;

/** Options of the controller. */
export interface CronJobControllerOptions {
  registry: ResourceRegistry;
  feed: ChangeFeed;
  clock?: Clock;
  /** The zone of schedules without `timeZone` (default: the process's). */
  zone?: string;
  logger?: Logger;
}

type Obj = Record<string, unknown>;

/** What one sync works with. */
interface Sync {
  cj: KubeObject;
  spec: Obj;
  status: CronStatus;
  jobs: KubeObject[];
  now: number;
}

/** Runs CronJobs. */
export class CronJobController {
  readonly #opts: CronJobControllerOptions;
  readonly #clock: Clock;
  readonly #loop: KeyedLoop;
  readonly #events: ControllerEvents;

  constructor(opts: CronJobControllerOptions) {
    this.#opts = opts;
    this.#clock = opts.clock ?? systemClock;
    this.#events = new ControllerEvents(
      () => opts.registry.lookup("", "v1", "events"),
      "cronjob-controller",
      this.#clock,
      opts.logger,
    );
    this.#loop = new KeyedLoop({
      name: "cronjob controller",
      feed: opts.feed,
      prefixes: [CRONJOBS, JOBS],
      keysOf: (key, obj) => {
        if (key.startsWith(CRONJOBS)) return [`${obj.metadata.namespace}/${obj.metadata.name}`];
        const owner = controllerKeyOf(obj, "CronJob");
        return owner ? [owner] : [];
      },
      sync: (key) => this.sync(key),
      // A create refused meanwhile (quota, a missing ServiceAccount) is tried again.
      resyncKeys: () => keysIn(opts.registry.lookup("batch", "v1", "cronjobs")!),
      logger: opts.logger,
    });
  }

  /** Starts following CronJobs and Jobs. */
  start(): Promise<void> {
    return this.#loop.start();
  }

  /** Stops and waits for the sync in progress. */
  stop(): Promise<void> {
    return this.#loop.stop();
  }

  #store(resource: string): Store {
    return this.#opts.registry.lookup("batch", "v1", resource)!;
  }

  /** Syncs the CronJob `<namespace>/<name>`; answers when it wants to run again (ms). */
  async sync(key: string): Promise<number | undefined> {
    const [ns, name] = splitKey(key);
    const cj = await this.#store("cronjobs").get(ns, name).catch(() => undefined);
    if (!cj) return undefined;
    const jobs = (await this.#store("jobs").list(ns, { plan: { mode: "latest" } })).items
      .filter((j) =>
        (j.metadata.ownerReferences ?? []).some((r) => r.controller && r.uid === cj.metadata.uid)
      );
    const s: Sync = {
      cj,
      spec: isObject(cj.spec) ? cj.spec : {},
      status: structuredClone((cj.status ?? {}) as CronStatus),
      jobs,
      now: this.#clock.now(),
    };
    await this.#reconcileActive(s);
    const again = cj.metadata.deletionTimestamp ? undefined : await this.#schedule(s);
    if (!cj.metadata.deletionTimestamp) {
      await cleanupFinished(s.cj, s.spec, s.jobs, this.#store("jobs"), this.#events, s.status);
    }
    if (!deepEqual(s.status, cj.status ?? {})) await this.#writeStatus(cj, s.status);
    return again;
  }

  /** Drops finished and missing Jobs from `active`; notes the last success. */
  async #reconcileActive(s: Sync): Promise<void> {
    const active = s.status.active ?? [];
    const byUid = new Map(s.jobs.map((j) => [j.metadata.uid!, j]));
    for (const job of s.jobs) {
      const finished = jobFinishTime(job) !== undefined;
      const listed = active.some((r) => r.uid === job.metadata.uid);
      if (!finished && !listed) active.push(jobRef(job));
      if (!finished) continue;
      if (listed) {
        const type = conditionType(job);
        active.splice(active.findIndex((r) => r.uid === job.metadata.uid), 1);
        await this.#events.normal(
          s.cj,
          "SawCompletedJob",
          `Saw completed job: ${job.metadata.name}, condition: ${type}`,
        );
      }
      const completion = isObject(job.status) ? job.status.completionTime : undefined;
      if (conditionType(job) === "Complete" && typeof completion === "string") {
        const last = s.status.lastSuccessfulTime;
        if (!last || Date.parse(completion) > Date.parse(last)) {
          s.status.lastSuccessfulTime = completion;
        }
      }
    }
    for (const ref of [...active]) {
      if (byUid.has(ref.uid)) continue;
      await this.#events.normal(s.cj, "MissingJob", `Active job went missing: ${ref.name}`);
      active.splice(active.indexOf(ref), 1);
    }
    if (active.length) s.status.active = active;
    else delete s.status.active;
  }

  /** Starts the Job of the most recent missed activation, if it is due; answers the next. */
  async #schedule(s: Sync): Promise<number | undefined> {
    const { cj, spec } = s;
    const tz = typeof spec.timeZone === "string" ? spec.timeZone : undefined;
    if (tz !== undefined && !isTimeZone(tz)) {
      await this.#events.warning(
        cj,
        "UnknownTimeZone",
        `invalid timeZone: "${tz}": unknown time zone ${tz}`,
      );
      return undefined;
    }
    if (spec.suspend === true) return undefined;
    const schedule = String(spec.schedule ?? "");
    if (schedule.includes("TZ")) {
      await this.#events.warning(
        cj,
        "UnsupportedSchedule",
        `CRON_TZ or TZ used in schedule "${schedule}" is not officially supported`,
      );
    }
    const parsed = parseCronSchedule(schedule);
    if ("error" in parsed) {
      await this.#events.warning(
        cj,
        "UnparseableSchedule",
        `unparseable schedule: "${schedule}" : ${parsed.error}`,
      );
      return undefined;
    }
    const zone = tz ?? this.#opts.zone ?? localZone();
    const next = () => {
      const t = nextActivation(parsed, s.now, zone);
      return t === undefined ? undefined : t - s.now + NEXT_DELTA_MS;
    };
    const scheduled = await this.#mostRecent(s, parsed, zone);
    if (scheduled === undefined) return next();
    const deadline = typeof spec.startingDeadlineSeconds === "number"
      ? spec.startingDeadlineSeconds
      : undefined;
    if (deadline !== undefined && scheduled + deadline * 1000 < s.now) {
      await this.#events.warning(
        cj,
        "MissSchedule",
        `Missed scheduled time to start a job: ${rfc1123z(scheduled)}`,
      );
      return next();
    }
    const jobName = `${cj.metadata.name}-${Math.floor(scheduled / 60_000)}`;
    const active = s.status.active ?? [];
    const last = s.status.lastScheduleTime ? Date.parse(s.status.lastScheduleTime) : undefined;
    if (active.some((r) => r.name === jobName) || last === scheduled) return next();
    if (spec.concurrencyPolicy === "Forbid" && active.length > 0) {
      await this.#events.normal(
        cj,
        "JobAlreadyActive",
        "Not starting job because prior execution is running and concurrency policy is Forbid",
      );
      return next();
    }
    if (spec.concurrencyPolicy === "Replace") await this.#replace(s);
    await this.#startJob(s, jobName, scheduled, zone);
    return next();
  }

  /** The latest activation in (earliest, now], earliest being the last schedule or creation. */
  async #mostRecent(s: Sync, parsed: CronSchedule, zone: string): Promise<number | undefined> {
    let earliest = Date.parse(s.status.lastScheduleTime ?? s.cj.metadata.creationTimestamp ?? "");
    if (Number.isNaN(earliest)) earliest = s.now;
    const deadline = s.spec.startingDeadlineSeconds;
    if (typeof deadline === "number") earliest = Math.max(earliest, s.now - deadline * 1000);
    const { recent, missed } = mostRecentActivation(parsed, earliest, s.now, zone);
    if (missed > 100) {
      await this.#events.warning(
        s.cj,
        "TooManyMissedTimes",
        "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew",
      );
    }
    return recent;
  }

  async #replace(s: Sync): Promise<void> {
    for (const ref of [...s.status.active ?? []]) {
      try {
        await this.#store("jobs").delete(ref.namespace, ref.name, {
          propagationPolicy: "Background",
        });
      } catch (err) {
        if (!(err instanceof StatusError && err.code === 404)) throw err;
      }
      s.status.active = (s.status.active ?? []).filter((r) => r.uid !== ref.uid);
      await this.#events.normal(s.cj, "SuccessfulDelete", `Deleted job ${ref.name}`);
    }
    if (!s.status.active?.length) delete s.status.active;
  }

  async #startJob(s: Sync, name: string, scheduled: number, zone: string): Promise<void> {
    const jobs = this.#store("jobs");
    let job: KubeObject;
    try {
      job = await jobs.create(
        s.cj.metadata.namespace!,
        jobFromTemplate(s.cj, name, scheduled, zone),
      );
      await this.#events.normal(s.cj, "SuccessfulCreate", `Created job ${name}`);
    } catch (err) {
      if (!(err instanceof StatusError)) throw err;
      if (err.code !== 409) {
        await this.#events.warning(s.cj, "FailedCreate", `Error creating job: ${err.message}`);
        throw err;
      }
      job = await jobs.get(s.cj.metadata.namespace!, name);
      const ours = (job.metadata.ownerReferences ?? []).some((r) =>
        r.controller && r.uid === s.cj.metadata.uid
      );
      if (!ours || (s.status.active ?? []).some((r) => r.uid === job.metadata.uid)) return;
    }
    s.status.active = [...(s.status.active ?? []), jobRef(job)];
    s.status.lastScheduleTime = rfc3339(scheduled);
    s.jobs.push(job);
  }

  async #writeStatus(cj: KubeObject, status: CronStatus): Promise<void> {
    await this.#store("cronjobs").guaranteedUpdate(
      cj.metadata.namespace!,
      cj.metadata.name!,
      (cur) =>
        cur && cur.metadata.uid === cj.metadata.uid
          ? { ...cur, status: structuredClone(status) }
          : undefined,
      {},
      { subresource: "status" },
    );
  }
}

function conditionType(job: KubeObject): string | undefined {
  const conditions = isObject(job.status) && Array.isArray(job.status.conditions)
    ? job.status.conditions as Obj[]
    : [];
  return conditions.find((c) =>
    (c.type === "Complete" || c.type === "Failed") && c.status === "True"
  )?.type as string | undefined;
}

/** Go's RFC1123Z in UTC: `Mon, 02 Jan 2006 15:04:05 +0000`. */
function rfc1123z(ms: number): string {
  return new Date(ms).toUTCString().replace("GMT", "+0000");
}
