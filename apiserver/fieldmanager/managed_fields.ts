/**
 * metadata.managedFields ⇄ per-manager field sets. Entries are keyed by a manager identifier
 * (the entry's manager, operation, subresource and, for updates, apiVersion, as compact JSON)
 * and written back exactly as kube-apiserver writes them: field order `manager, operation,
 * apiVersion, time, fieldsType, fieldsV1, subresource`, sorted by operation, time, manager,
 * apiVersion and subresource.
 *
 * @module
 */
import type { ManagedFieldsEntry } from "../../shared/api/meta/v1/types.ts";
import { fieldsV1ToSet, setToFieldsV1 } from "./fields_v1.ts";
import type { ManagedFieldSets } from "./managed_fields_set.ts";
import { isJsonObject } from "./value.ts";

/** Field sets and the time of each manager's last change. */
export interface Managed {
  fields: ManagedFieldSets;
  /** RFC 3339 times (seconds) by manager identifier; absent when unknown. */
  times: Map<string, string | undefined>;
}

/** An empty Managed. */
export function emptyManaged(): Managed {
  return { fields: new Map(), times: new Map() };
}

/** Thrown for a managedFields list that cannot be decoded. */
export class ManagedFieldsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ManagedFieldsError";
  }
}

/** The identity of a manager. */
export interface ManagerInfo {
  manager: string;
  operation: "Apply" | "Update";
  apiVersion?: string;
  subresource?: string;
}

/** The manager identifier: compact JSON of manager, operation, apiVersion (updates) and subresource. */
export function managerIdentifier(info: ManagerInfo): string {
  const o: Record<string, string> = {};
  if (info.manager) o.manager = info.manager;
  if (info.operation) o.operation = info.operation;
  if (info.operation !== "Apply" && info.apiVersion) o.apiVersion = info.apiVersion;
  if (info.subresource) o.subresource = info.subresource;
  return JSON.stringify(o);
}

/** Parses a manager identifier back. */
export function parseManagerIdentifier(id: string): ManagerInfo {
  const o = JSON.parse(id) as Partial<ManagerInfo>;
  return {
    manager: o.manager ?? "",
    operation: o.operation ?? "Update",
    apiVersion: o.apiVersion,
    subresource: o.subresource,
  };
}

/** Decodes managedFields entries; throws ManagedFieldsError for an invalid entry. */
export function decodeManagedFields(entries: unknown): Managed {
  const out = emptyManaged();
  if (entries === undefined || entries === null) return out;
  if (!Array.isArray(entries)) throw new ManagedFieldsError("managedFields must be a list");
  entries.forEach((e, i) => {
    if (!isJsonObject(e)) {
      throw new ManagedFieldsError(`managed fields entry ${i} is not an object`);
    }
    if (e.operation !== "Apply" && e.operation !== "Update") {
      throw new ManagedFieldsError("operation must be `Apply` or `Update`");
    }
    if (typeof e.apiVersion !== "string" || e.apiVersion.length < 1) {
      throw new ManagedFieldsError("apiVersion must not be empty");
    }
    if (e.fieldsType === undefined || e.fieldsType === "") {
      throw new ManagedFieldsError(`missing fieldsType in managed fields entry ${i}`);
    }
    if (e.fieldsType !== "FieldsV1") {
      throw new ManagedFieldsError(
        `invalid fieldsType "${e.fieldsType}" in managed fields entry ${i}`,
      );
    }
    const id = managerIdentifier({
      manager: typeof e.manager === "string" ? e.manager : "",
      operation: e.operation,
      apiVersion: e.apiVersion,
      subresource: typeof e.subresource === "string" ? e.subresource : undefined,
    });
    let set;
    try {
      set = fieldsV1ToSet(e.fieldsV1);
    } catch (err) {
      throw new ManagedFieldsError(`error decoding set: ${(err as Error).message}`);
    }
    out.fields.set(id, { set, apiVersion: e.apiVersion, applied: e.operation === "Apply" });
    out.times.set(id, typeof e.time === "string" ? e.time : undefined);
  });
  return out;
}

function seconds(t: string | undefined): number {
  if (!t) return 0;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
}

/** Encodes managed sets as entries (undefined when there are none). */
export function encodeManagedFields(m: Managed): ManagedFieldsEntry[] | undefined {
  if (m.fields.size === 0) return undefined;
  const entries: ManagedFieldsEntry[] = [];
  for (const [id, vs] of m.fields) {
    const info = parseManagerIdentifier(id);
    const e: ManagedFieldsEntry = {};
    if (info.manager) e.manager = info.manager;
    e.operation = vs.applied ? "Apply" : info.operation;
    if (vs.apiVersion) e.apiVersion = vs.apiVersion;
    const time = m.times.get(id);
    if (time) e.time = time;
    e.fieldsType = "FieldsV1";
    e.fieldsV1 = setToFieldsV1(vs.set);
    if (info.subresource) e.subresource = info.subresource;
    entries.push(e);
  }
  return entries.sort((p, q) => {
    if (p.operation !== q.operation) return (p.operation ?? "") < (q.operation ?? "") ? -1 : 1;
    const ps = seconds(p.time), qs = seconds(q.time);
    if (ps !== qs) return ps - qs;
    if (p.manager !== q.manager) return (p.manager ?? "") < (q.manager ?? "") ? -1 : 1;
    if (p.apiVersion !== q.apiVersion) return (p.apiVersion ?? "") < (q.apiVersion ?? "") ? -1 : 1;
    const a = p.subresource ?? "", b = q.subresource ?? "";
    return a < b ? -1 : a > b ? 1 : 0;
  });
}

/** Whether a request's managedFields asks for a reset: a list holding one empty entry. */
export function isResetManagedFields(entries: unknown): boolean {
  return Array.isArray(entries) && entries.length === 1 && isJsonObject(entries[0]) &&
    Object.values(entries[0]).every((v) => v === undefined);
}
