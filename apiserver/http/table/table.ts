/**
 * toTable: the meta.k8s.io Table representation of an object or a list, with the kind's
 * columns (Name and Created At by default), `includeObject` (None, Metadata, Object) and the
 * list's resourceVersion, continue token and remaining item count in the Table's metadata.
 *
 * @module
 */
import type { KubeObject, ListMeta } from "../../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import type { KindDef, TableColumnDefinition } from "../../registry/generic/kind.ts";
import { DEFAULT_TABLE_COLUMNS } from "../../registry/generic/table_columns.ts";

export {
  AGE_COLUMN,
  DEFAULT_TABLE_COLUMNS,
  NAME_COLUMN,
} from "../../registry/generic/table_columns.ts";

/** What a row carries of its object. */
export type IncludeObject = "None" | "Metadata" | "Object";

/** One row of a Table. */
export interface TableRow {
  cells: unknown[];
  object?: Record<string, unknown>;
}

/** A meta.k8s.io Table. */
export interface Table {
  kind: "Table";
  apiVersion: string;
  metadata: ListMeta;
  columnDefinitions: TableColumnDefinition[];
  rows: TableRow[];
}

/** Options of {@link toTable}. */
export interface TableOptions {
  /** `v1` (default) or `v1beta1`. */
  version?: string;
  includeObject?: IncludeObject;
  /** Omit column definitions (a watch sends them with the first event only). */
  noHeaders?: boolean;
  /** The current time in ms (ages); defaults to Date.now(). */
  now?: number;
}

/** Parses `includeObject` (default Metadata); 400 for anything else. */
export function parseIncludeObject(q: URLSearchParams): IncludeObject {
  const v = q.get("includeObject") ?? "";
  if (v === "") return "Metadata";
  if (v === "None" || v === "Metadata" || v === "Object") return v;
  throw StatusError.badRequest(
    `unrecognized includeObject value: ${JSON.stringify(v)}`,
  );
}

function rowObject(
  obj: KubeObject,
  include: IncludeObject,
  version: string,
): Record<string, unknown> | undefined {
  if (include === "None") return undefined;
  if (include === "Object") return obj;
  return {
    kind: "PartialObjectMetadata",
    apiVersion: `meta.k8s.io/${version}`,
    metadata: obj.metadata,
  };
}

/** Whether a value is a list (has `items`). */
function isList(v: unknown): v is { metadata?: ListMeta; items: KubeObject[] } {
  return typeof v === "object" && v !== null && Array.isArray((v as { items?: unknown }).items);
}

/** Converts an object or a list of `def`'s kind into a Table. */
export function toTable(value: unknown, def: KindDef, opts: TableOptions = {}): Table {
  const version = opts.version ?? "v1";
  const include = opts.includeObject ?? "Metadata";
  const now = opts.now ?? Date.now();
  const cols = def.strategy.tableColumns ?? DEFAULT_TABLE_COLUMNS;
  const all = isList(value) ? value.items : [value as KubeObject];
  const items = cols.compare ? [...all].sort(cols.compare) : all;
  const metadata: ListMeta = {};
  if (isList(value)) {
    const m = value.metadata ?? {};
    if (m.resourceVersion) metadata.resourceVersion = m.resourceVersion;
    if (m.continue) metadata.continue = m.continue;
    if (m.remainingItemCount !== undefined) metadata.remainingItemCount = m.remainingItemCount;
  } else {
    const rv = (value as KubeObject).metadata?.resourceVersion;
    if (rv) metadata.resourceVersion = rv;
  }
  return {
    kind: "Table",
    apiVersion: `meta.k8s.io/${version}`,
    metadata,
    columnDefinitions: opts.noHeaders ? [] : [...cols.columns],
    rows: items.map((obj) => {
      const row: TableRow = { cells: cols.cells(obj, now) };
      const o = rowObject(obj, include, version);
      if (o) row.object = o;
      return row;
    }),
  };
}

/** The Content-Type of a Table response. */
export function tableContentType(version = "v1", format: "json" | "yaml" = "json"): string {
  return `application/${format};as=Table;v=${version};g=meta.k8s.io`;
}
