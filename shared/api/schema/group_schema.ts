/**
 * The declaration format of one group version's schema: which kinds it serves and what the
 * wire field list alone does not say (descriptions, required fields, enums, defaults, formats
 * and merge markers). Field names and types come from the group's message descriptors.
 *
 * @module
 */
import type { FieldSchema, MapType } from "./model.ts";

/** What a declaration adds to one field. */
export type FieldOverlay = Partial<
  Pick<
    FieldSchema,
    | "description"
    | "enum"
    | "default"
    | "format"
    | "listType"
    | "listMapKeys"
    | "mapType"
    | "patchStrategy"
    | "patchMergeKey"
  >
>;

/** What a declaration adds to one type. */
export interface TypeOverlay {
  description?: string;
  /** Required properties. */
  required?: readonly string[];
  /**
   * Properties the OpenAPI documents call required (kubectl explain, client-side validation)
   * whose absence the kind's own validation judges, with Kubernetes' messages and exceptions,
   * instead of field validation (e.g. an events.k8s.io/v1 Event's `eventTime`, required on create
   * only).
   */
  documentedRequired?: readonly string[];
  /** Per-field additions, by JSON name. */
  fields?: Readonly<Record<string, FieldOverlay>>;
  structType?: MapType;
}

/** The schema declaration of one group version. */
export interface GroupSchema {
  /** Message package, e.g. `core.v1`. */
  package: string;
  /** API group ("" for core) and version. */
  group: string;
  version: string;
  /** Prefix of OpenAPI definition names, e.g. `io.k8s.api.core.v1`. */
  openApiPrefix: string;
  /** Kinds served in this group version (each gets apiVersion and kind properties). */
  kinds: readonly string[];
  /** Per-type additions, by short message name (e.g. `PodSpec`). */
  types: Readonly<Record<string, TypeOverlay>>;
}

/** Shorthand for a list merged by key (`patchStrategy: merge` and `listType: map`). */
export function mergeList(key: string, ...moreKeys: string[]): FieldOverlay {
  return {
    listType: "map",
    listMapKeys: [key, ...moreKeys],
    patchStrategy: "merge",
    patchMergeKey: key,
  };
}

/** Shorthand for an atomic list. */
export const ATOMIC_LIST: FieldOverlay = { listType: "atomic" };
