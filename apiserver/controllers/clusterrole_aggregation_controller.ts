/**
 * The cluster role aggregation controller: every ClusterRole with an `aggregationRule` gets
 * its `rules` replaced by the union of the rules of the ClusterRoles whose labels match one of
 * its `clusterRoleSelectors` (in name order, duplicates dropped), and kept current as roles
 * change. Driven by the RBAC index's change notifications; writes through the ClusterRole
 * store with no user (internal writes skip escalation checks).
 *
 * @module
 */
import type { Logger } from "../../shared/log/mod.ts";
import {
  labelSelectorFromObject,
  type LabelSelectorObject,
} from "../../shared/selectors/label_selector.ts";
import type { RbacIndex } from "../auth/authz/rbac_index.ts";
import { RBAC_PREFIXES } from "../auth/authz/rbac_index.ts";
import type { PolicyRule, RoleObject } from "../auth/authz/rbac_types.ts";
import type { Store } from "../registry/generic/store.ts";
import { StatusError } from "../../shared/errors/status_error.ts";
import { WorkQueue } from "./work_queue.ts";

/** Options of the controller. */
export interface ClusterRoleAggregationOptions {
  index: RbacIndex;
  /** The ClusterRole store. */
  clusterRoles: () => Store;
  logger?: Logger;
}

/** The rules an aggregated role should hold, given every cluster role. */
export function aggregatedRules(role: RoleObject, all: readonly RoleObject[]): PolicyRule[] {
  const selectors = (role.aggregationRule?.clusterRoleSelectors ?? []).map((s) => {
    try {
      return labelSelectorFromObject(s as LabelSelectorObject);
    } catch {
      return undefined;
    }
  });
  const matched = all
    .filter((r) => r.metadata.name !== role.metadata.name)
    .filter((r) => selectors.some((s) => s?.matches(r.metadata.labels ?? {})))
    .sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : 1));
  const out: PolicyRule[] = [];
  const seen = new Set<string>();
  for (const r of matched) {
    for (const rule of r.rules ?? []) {
      const key = JSON.stringify(rule);
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(structuredClone(rule));
    }
  }
  return out;
}

/** Keeps aggregated ClusterRoles' rules current. */
export class ClusterRoleAggregationController {
  readonly #opts: ClusterRoleAggregationOptions;
  readonly #queue: WorkQueue<"all">;
  #unsubscribe?: () => void;

  constructor(opts: ClusterRoleAggregationOptions) {
    this.#opts = opts;
    this.#queue = new WorkQueue(
      () => this.syncAll(),
      (_key, err) => opts.logger?.error("cluster role aggregation failed", { err: String(err) }),
    );
  }

  /** Starts reacting to cluster role changes and syncs once. */
  start(): void {
    this.#unsubscribe = this.#opts.index.onChange((events) => {
      if (events.some((e) => e.key.startsWith(RBAC_PREFIXES.clusterroles))) this.schedule();
    });
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
    this.#unsubscribe?.();
    await this.#queue.stop();
  }

  /** Brings every aggregated role up to date once. */
  async syncAll(): Promise<void> {
    const all = this.#opts.index.clusterRoles();
    for (const role of all) {
      if (this.#queue.stopped) return;
      if (!role.aggregationRule) continue;
      const rules = aggregatedRules(role, all);
      if (JSON.stringify(rules) === JSON.stringify(role.rules ?? [])) continue;
      try {
        // Written over the role as stored, unless its aggregation rule changed meanwhile (its
        // commit schedules another sync).
        const rule = JSON.stringify(role.aggregationRule);
        await this.#opts.clusterRoles().guaranteedUpdate(
          "",
          role.metadata.name!,
          (current) =>
            current && JSON.stringify(current.aggregationRule) === rule
              ? { ...current, rules }
              : undefined,
        );
      } catch (err) {
        // A concurrent write or deletion: its commit reaches the index and schedules again.
        if (err instanceof StatusError && (err.code === 409 || err.code === 404)) continue;
        this.#opts.logger?.error("cluster role aggregation failed", {
          role: role.metadata.name,
          err: String(err),
        });
      }
    }
  }
}
