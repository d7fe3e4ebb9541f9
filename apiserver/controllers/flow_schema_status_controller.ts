/**
 * Keeps every FlowSchema's `Dangling` condition current, as the API Priority and Fairness
 * configuration controller of Kubernetes does: True (reason NotFound) while the schema refers
 * to a PriorityLevelConfiguration that does not exist, False (reason Found) otherwise. It runs
 * once at start and again after each FlowSchema or PriorityLevelConfiguration commit. (Requests
 * are not classified: API Priority and Fairness itself is not implemented.)
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../shared/errors/status_error.ts";
import type { Logger } from "../../shared/log/mod.ts";
import { isObject } from "../../shared/json/is_object.ts";
import { rfc3339 } from "../registry/generic/clock.ts";
import type { Store } from "../registry/generic/store.ts";
import { WorkQueue } from "./work_queue.ts";

/** The field manager of the controller's status writes (Kubernetes' own). */
const MANAGER = "api-priority-and-fairness-config-consumer-v1";

/** Options of the controller. */
export interface FlowSchemaStatusOptions {
  flowSchemas: Store;
  priorityLevels: Store;
  logger?: Logger;
}

type Condition = Record<string, unknown>;

/** The Dangling condition a schema should carry (without its transition time). */
export function danglingCondition(fs: KubeObject, levels: ReadonlySet<string>): Condition {
  const spec = isObject(fs.spec) ? fs.spec : {};
  const ref = isObject(spec.priorityLevelConfiguration) ? spec.priorityLevelConfiguration : {};
  const name = String(ref.name ?? "");
  return levels.has(name)
    ? {
      type: "Dangling",
      status: "False",
      reason: "Found",
      message: `This FlowSchema references the PriorityLevelConfiguration object named ` +
        `"${name}" and it exists`,
    }
    : {
      type: "Dangling",
      status: "True",
      reason: "NotFound",
      message: `This FlowSchema references the PriorityLevelConfiguration object named ` +
        `"${name}" but there is no such object`,
    };
}

function conditionsOf(fs: KubeObject): Condition[] {
  const status = isObject(fs.status) ? fs.status : {};
  return Array.isArray(status.conditions) ? status.conditions.filter(isObject) : [];
}

/** Maintains the FlowSchemas' Dangling conditions. */
export class FlowSchemaStatusController {
  readonly #opts: FlowSchemaStatusOptions;
  readonly #queue: WorkQueue<"all">;
  #unsubscribe: (() => void)[] = [];

  constructor(opts: FlowSchemaStatusOptions) {
    this.#opts = opts;
    this.#queue = new WorkQueue(
      () => this.syncAll(),
      (_key, err) => opts.logger?.error("flow schema status sync failed", { err: String(err) }),
    );
  }

  /** Starts reacting to changes and syncs once. */
  start(): void {
    const schedule = () => this.schedule();
    this.#unsubscribe = [
      this.#opts.flowSchemas.onCommit(schedule),
      this.#opts.priorityLevels.onCommit(schedule),
    ];
    this.schedule();
  }

  /** Requests a sync; coalesces requests while one runs. */
  schedule(): void {
    this.#queue.add("all");
  }

  /** Resolves when no sync is running or pending. */
  idle(): Promise<void> {
    return this.#queue.idle();
  }

  /** Stops the controller and waits for the work in progress. */
  async stop(): Promise<void> {
    for (const u of this.#unsubscribe) u();
    await this.#queue.stop();
  }

  /** Brings every FlowSchema's Dangling condition up to date once. */
  async syncAll(): Promise<void> {
    const latest = { plan: { mode: "latest" as const } };
    const levels = new Set(
      (await this.#opts.priorityLevels.list("", latest)).items.map((o) => o.metadata.name!),
    );
    for (const fs of (await this.#opts.flowSchemas.list("", latest)).items as KubeObject[]) {
      if (this.#queue.stopped) return;
      const want = danglingCondition(fs, levels);
      const have = conditionsOf(fs).find((c) => c.type === "Dangling");
      if (have && ["status", "reason", "message"].every((k) => have[k] === want[k])) continue;
      const conditions = conditionsOf(fs).filter((c) => c.type !== "Dangling");
      conditions.push({ ...want, lastTransitionTime: rfc3339(Date.now()) });
      const next = { ...fs, status: { ...(isObject(fs.status) ? fs.status : {}), conditions } };
      try {
        await this.#opts.flowSchemas.update("", fs.metadata.name!, next, {
          subresource: "status",
          fieldManager: MANAGER,
        });
      } catch (err) {
        // A concurrent write or deletion: its commit schedules another sync.
        if (!(err instanceof StatusError && (err.code === 409 || err.code === 404))) throw err;
      }
    }
  }
}
