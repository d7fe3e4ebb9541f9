/**
 * The job controller (kube's `job-controller`): runs each Job's pods to completion. It creates
 * pods from the template (up to `parallelism`, until `completions` succeed; per index for
 * Indexed jobs) with the `batch.kubernetes.io/job-tracking` finalizer, counts finished pods
 * through `status.uncountedTerminatedPods` before it removes their finalizer, applies
 * `podFailurePolicy`, `backoffLimit` (with exponential back-off between failures, 10 s doubling
 * to 10 min), `activeDeadlineSeconds` and `suspend`, and finishes a Job with kube 1.32's
 * conditions: `SuccessCriteriaMet` then `Complete`, or `FailureTarget` then `Failed` once its
 * remaining pods are gone. Events are kube's (`SuccessfulCreate`, `SuccessfulDelete`,
 * `Completed`, `Suspended`, `Resumed`, and a Warning with the failure reason).
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import type { Logger } from "../../../shared/log/mod.ts";
import { deepEqual } from "../../../shared/json/deep_equal.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import { type Clock, systemClock } from "../../registry/generic/clock.ts";
import type { ResourceRegistry } from "../../registry/resource_registry.ts";
import type { Store } from "../../registry/generic/store.ts";
import type { ChangeFeed } from "../../watch/change_feed.ts";
import { ControllerEvents } from "../workloads/controller_events.ts";
import { controllerKeyOf, KeyedLoop, keysIn, splitKey } from "../workloads/keyed_loop.ts";
import { isFinished, type JobStatus, trueCondition } from "./job_conditions.ts";
import { isTracked } from "./job_pods.ts";
import { type FailureTracking, type JobContext, removeTrackingFinalizer } from "./job_context.ts";
import { countFinished } from "./job_tracking.ts";
import { updateFailedIndexes } from "./per_index.ts";
import { decideOutcome, manageJob } from "./job_manage.ts";

const JOBS = "/registry/batch/jobs/";
const PODS = "/registry/core/pods/";

/** Options of the controller. */
export interface JobControllerOptions {
  registry: ResourceRegistry;
  /** The change feed it follows (started). */
  feed: ChangeFeed;
  clock?: Clock;
  logger?: Logger;
  /** Resync period, ms (default 30 s). */
  resyncMs?: number;
}

/** Runs Jobs. */
export class JobController {
  readonly #opts: JobControllerOptions;
  readonly #clock: Clock;
  readonly #loop: KeyedLoop;
  readonly #events: ControllerEvents;
  /** Failures since the last success and when the last one was seen, per Job key. */
  readonly #failures = new Map<string, FailureTracking & { uid: string }>();

  constructor(opts: JobControllerOptions) {
    this.#opts = opts;
    this.#clock = opts.clock ?? systemClock;
    this.#events = new ControllerEvents(
      () => opts.registry.lookup("", "v1", "events"),
      "job-controller",
      this.#clock,
      opts.logger,
    );
    this.#loop = new KeyedLoop({
      name: "job controller",
      feed: opts.feed,
      prefixes: [JOBS, PODS],
      keysOf: (key, obj) => {
        if (key.startsWith(JOBS)) return [`${obj.metadata.namespace}/${obj.metadata.name}`];
        const owner = controllerKeyOf(obj, "Job");
        return owner ? [owner] : [];
      },
      sync: (key) => this.sync(key),
      resyncKeys: () => keysIn(this.#jobs()),
      resyncMs: opts.resyncMs,
      logger: opts.logger,
    });
  }

  /** Starts following Jobs and pods. */
  start(): Promise<void> {
    return this.#loop.start();
  }

  /** Stops and waits for the sync in progress. */
  stop(): Promise<void> {
    return this.#loop.stop();
  }

  /** Resolves when no Job is being synced or waits. */
  idle(): Promise<void> {
    return this.#loop.idle();
  }

  #jobs(): Store {
    return this.#opts.registry.lookup("batch", "v1", "jobs")!;
  }

  #pods(): Store {
    return this.#opts.registry.lookup("", "v1", "pods")!;
  }

  /** Syncs the Job `<namespace>/<name>`; answers when it wants to run again (ms). */
  async sync(key: string): Promise<number | undefined> {
    const [ns, name] = splitKey(key);
    const job = await this.#jobs().get(ns, name).catch((err) => {
      if (err instanceof StatusError && err.code === 404) return undefined;
      throw err;
    });
    const pods = await this.#ownedPods(ns, name, job?.metadata.uid);
    const status = structuredClone((job?.status ?? {}) as JobStatus);
    if (!job || job.metadata.deletionTimestamp || isFinished(status)) {
      // Nothing will count these pods any more: release them.
      await this.#releaseFinalizers(pods.filter(isTracked));
      if (!job || isFinished(status)) this.#failures.delete(key);
      return undefined;
    }
    let failures = this.#failures.get(key);
    if (!failures || failures.uid !== job.metadata.uid) {
      failures = { uid: job.metadata.uid!, sinceSuccess: 0, lastAt: 0 };
      this.#failures.set(key, failures);
    }
    const ctx: JobContext = {
      pods: this.#pods(),
      events: this.#events,
      now: this.#clock.now(),
      failures,
    };
    const counted = await countFinished(job, pods, status, ctx, (s) => this.#writeStatus(job, s));
    ctx.indexFailures = updateFailedIndexes(job, pods, status);

    const outcome = decideOutcome(job, status, counted, ctx.now);
    const again = await manageJob(job, counted.remaining, status, outcome, ctx);
    if (!deepEqual(status, job.status ?? {})) await this.#writeStatus(job, status);
    if (trueCondition(status, "Complete")) {
      await this.#events.normal(job, "Completed", "Job completed");
    }
    return again;
  }

  /** The pods whose controller is the Job (by uid when it exists, else by name). */
  async #ownedPods(ns: string, name: string, uid?: string): Promise<KubeObject[]> {
    const list = await this.#pods().list(ns, { plan: { mode: "latest" } });
    return list.items.filter((p) =>
      (p.metadata.ownerReferences ?? []).some((r) =>
        r.controller === true && r.kind === "Job" && (uid ? r.uid === uid : r.name === name)
      )
    );
  }

  async #writeStatus(job: KubeObject, status: JobStatus): Promise<void> {
    await this.#jobs().guaranteedUpdate(
      job.metadata.namespace!,
      job.metadata.name!,
      (cur) => {
        if (!cur || cur.metadata.uid !== job.metadata.uid) return undefined;
        return { ...cur, status: structuredClone(status) };
      },
      {},
      { subresource: "status" },
    );
  }

  async #releaseFinalizers(pods: KubeObject[]): Promise<void> {
    for (const pod of pods) await removeTrackingFinalizer(this.#pods(), pod);
  }
}
