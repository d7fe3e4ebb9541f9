/**
 * Building blocks of Table columns for the kinds' strategies: the default columns (Name,
 * Created At), the Name and Age columns, kubectl's human durations, and small readers.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { isObject } from "../../../shared/json/is_object.ts";
import type { TableColumnDefinition, TableColumns } from "./kind.ts";

const NAME_DESCRIPTION =
  "Name must be unique within a namespace. Clients may request a name to be generated.";
const CREATED_DESCRIPTION =
  "CreationTimestamp is the time the object was created, set by the server.";

/** The columns of a kind without its own: Name and Created At. */
export const DEFAULT_TABLE_COLUMNS: TableColumns = {
  columns: [
    { name: "Name", type: "string", format: "name", description: NAME_DESCRIPTION, priority: 0 },
    {
      name: "Created At",
      type: "date",
      format: "",
      description: CREATED_DESCRIPTION,
      priority: 0,
    },
  ],
  cells: (obj) => [obj.metadata?.name ?? "", obj.metadata?.creationTimestamp ?? null],
};

/** The Name column definition, for kinds declaring their own columns. */
export const NAME_COLUMN: TableColumnDefinition = DEFAULT_TABLE_COLUMNS.columns[0];

/** An Age column definition. */
export const AGE_COLUMN: TableColumnDefinition = {
  name: "Age",
  type: "string",
  format: "",
  description: CREATED_DESCRIPTION,
  priority: 0,
};

/** Formats a duration in milliseconds the way Kubernetes' HumanDuration does. */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const d = Math.trunc(hours / 24) % 365;
    const y = Math.trunc(hours / 24 / 365);
    return d === 0 ? `${y}y` : `${y}y${d}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/** The age of an RFC 3339 timestamp at `now` (ms), or `<unknown>` when it is unset or bad. */
export function ageCell(timestamp: unknown, now: number): string {
  if (typeof timestamp !== "string" || timestamp === "") return "<unknown>";
  const t = Date.parse(timestamp);
  if (Number.isNaN(t)) return "<unknown>";
  return humanDuration(now - t);
}

/** A plain object, or `{}` for anything else (reads optional nested fields safely). */
export function objectOf(v: unknown): Record<string, unknown> {
  return isObject(v) ? v : {};
}

/** A list of plain objects, or `[]`. */
export function listOf(v: unknown): Record<string, unknown>[] {
  return Array.isArray(v) ? v.map(objectOf) : [];
}

/** A column definition. */
export function column(
  name: string,
  type: string,
  description: string,
  priority = 0,
): TableColumnDefinition {
  return { name, type, format: "", description, priority };
}

/** The Age cell of an object. */
export function ageOf(o: KubeObject, now: number): string {
  return ageCell(o.metadata?.creationTimestamp, now);
}

/** The columns of a kind whose printer shows Name and Age only. */
export const NAME_AGE_COLUMNS: TableColumns = {
  columns: [NAME_COLUMN, AGE_COLUMN],
  cells: (o, now) => [o.metadata?.name ?? "", ageOf(o, now)],
};
