/**
 * The ttl-after-finished controller (kube's `ttl-after-finished-controller`): deletes a
 * finished Job (Complete or Failed) `spec.ttlSecondsAfterFinished` seconds after it finished
 * (the finishing condition's `lastTransitionTime`), with foreground propagation so its pods go
 * first, and only the Job it judged (a uid precondition). Jobs not yet due are synced again
 * when they are.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import type { Logger } from "../../../shared/log/mod.ts";
import { isObject } from "../../../shared/json/is_object.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import { type Clock, systemClock } from "../../registry/generic/clock.ts";
import type { ResourceRegistry } from "../../registry/resource_registry.ts";
import type { ChangeFeed } from "../../watch/change_feed.ts";
import { KeyedLoop, splitKey } from "../workloads/keyed_loop.ts";
import type { JobCondition } from "./job_conditions.ts";

const JOBS = "/registry/batch/jobs/";

/** Options of the controller. */
export interface TtlAfterFinishedOptions {
  registry: ResourceRegistry;
  feed: ChangeFeed;
  clock?: Clock;
  logger?: Logger;
}

/** When `job` finished (ms), or undefined while it runs. */
export function jobFinishTime(job: KubeObject): number | undefined {
  const conditions = isObject(job.status) && Array.isArray(job.status.conditions)
    ? job.status.conditions as JobCondition[]
    : [];
  const done = conditions.find((c) =>
    (c.type === "Complete" || c.type === "Failed") && c.status === "True"
  );
  if (!done) return undefined;
  const at = Date.parse(done.lastTransitionTime ?? "");
  return Number.isNaN(at) ? undefined : at;
}

/** Deletes finished Jobs once their TTL expired. */
export class TtlAfterFinishedController {
  readonly #opts: TtlAfterFinishedOptions;
  readonly #clock: Clock;
  readonly #loop: KeyedLoop;

  constructor(opts: TtlAfterFinishedOptions) {
    this.#opts = opts;
    this.#clock = opts.clock ?? systemClock;
    this.#loop = new KeyedLoop({
      name: "ttl-after-finished controller",
      feed: opts.feed,
      prefixes: [JOBS],
      keysOf: (_, obj) => {
        const spec = isObject(obj.spec) ? obj.spec : {};
        const due = typeof spec.ttlSecondsAfterFinished === "number" &&
          !obj.metadata.deletionTimestamp && jobFinishTime(obj) !== undefined;
        return due ? [`${obj.metadata.namespace}/${obj.metadata.name}`] : [];
      },
      sync: (key) => this.sync(key),
      logger: opts.logger,
    });
  }

  /** Starts following Jobs. */
  start(): Promise<void> {
    return this.#loop.start();
  }

  /** Stops and waits for the sync in progress. */
  stop(): Promise<void> {
    return this.#loop.stop();
  }

  /** Deletes the Job when its TTL expired; answers the time left otherwise (ms). */
  async sync(key: string): Promise<number | undefined> {
    const [ns, name] = splitKey(key);
    const jobs = this.#opts.registry.lookup("batch", "v1", "jobs")!;
    const job = await jobs.get(ns, name).catch(() => undefined);
    if (!job || job.metadata.deletionTimestamp) return undefined;
    const spec = isObject(job.spec) ? job.spec : {};
    const finished = jobFinishTime(job);
    if (typeof spec.ttlSecondsAfterFinished !== "number" || finished === undefined) return;
    const left = finished + spec.ttlSecondsAfterFinished * 1000 - this.#clock.now();
    if (left > 0) return left;
    try {
      await jobs.delete(ns, name, {
        propagationPolicy: "Foreground",
        preconditions: { uid: job.metadata.uid },
      });
      this.#opts.logger?.info("deleted expired job", { job: key });
    } catch (err) {
      if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
    }
    return undefined;
  }
}
