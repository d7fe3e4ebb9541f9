/** ManagedFieldSets: each manager's owned fields, with the API version and whether applied. */
import type { FieldSet } from "./field_set.ts";

/** The fields one manager owns. */
export interface VersionedSet {
  set: FieldSet;
  apiVersion: string;
  /** Whether the set comes from an apply (operation `Apply`). */
  applied: boolean;
}

/** Owned fields by manager identifier. */
export type ManagedFieldSets = Map<string, VersionedSet>;
