/**
 * What a list asks the store for, and the faster source of lists (the watch cache) a store may
 * be given.
 *
 * @module
 */
import type { KubeList } from "../../../shared/api/meta/v1/types.ts";

/** How a list chooses the state it reads (the spec's resourceVersion table, resolved). */
export type ListPlan =
  | { mode: "latest" }
  | { mode: "any" }
  | { mode: "notOlderThan"; revision: number }
  | { mode: "exact"; revision: number }
  | { mode: "continue"; revision: number; startKeySuffix: string };

/** A list request as the store takes it. */
export interface ListQuery {
  plan: ListPlan;
  limit?: number;
  /** Label filter; absent means everything. */
  labels?: (labels: Record<string, string>) => boolean;
  /** Field filter over the kind's selectable fields; absent means everything. */
  fields?: (fields: Record<string, string>) => boolean;
}

/**
 * A faster source of lists (the watch cache). It answers undefined for a query it cannot
 * serve, and the store then reads storage.
 */
export interface ListCache {
  list(namespace: string, query: ListQuery): Promise<KubeList | undefined>;
}
