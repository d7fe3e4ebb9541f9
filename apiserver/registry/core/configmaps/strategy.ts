/** ConfigMap: namespaced string and binary data, optionally immutable. */
import { Buffer } from "node:buffer";
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import { isConfigMapKey } from "../../../../shared/api/validation/identifiers.ts";
import { forbidden, invalid, tooLong } from "../../../../shared/api/validation/field_errors.ts";
import type { KindDef, TableColumns } from "../../generic/kind.ts";
import {
  AGE_COLUMN,
  ageOf as age,
  column as col,
  NAME_COLUMN,
  objectOf as obj,
} from "../../generic/table_columns.ts";

const MAX_SIZE = 1024 * 1024;

/** The UTF-8 size of `s`, counted without encoding it (lone surrogates as U+FFFD, 3 bytes). */
function utf8Length(s: string): number {
  return Buffer.byteLength(s, "utf8");
}

/** The decoded length of base64 text. */
function base64Length(s: string): number {
  const padding = s.endsWith("==") ? 2 : s.endsWith("=") ? 1 : 0;
  return Math.floor(s.length * 3 / 4) - padding;
}

/** Whether two string maps hold the same entries, in any key order. */
function sameMap(a: unknown, b: unknown): boolean {
  const entries = (m: unknown) =>
    JSON.stringify(Object.entries(isObject(m) ? m : {}).sort(([x], [y]) => x < y ? -1 : 1));
  return entries(a) === entries(b);
}

function validate(obj: KubeObject): FieldError[] {
  // The schema makes data and binaryData maps of strings and immutable a boolean.
  const errs: FieldError[] = [];
  let size = 0;
  const seen = new Set<string>();
  for (const field of ["data", "binaryData"]) {
    const m = obj[field];
    if (!isObject(m)) continue;
    for (const [k, v] of Object.entries(m)) {
      for (const m of isConfigMapKey(k)) errs.push(invalid(`${field}[${k}]`, k, m));
      if (seen.has(k)) {
        errs.push(invalid(`data[${k}]`, k, "duplicate of key present in binaryData"));
      }
      seen.add(k);
      // As in Kubernetes, the limit counts the bytes of the values (binaryData decoded).
      size += field === "data" ? utf8Length(String(v)) : base64Length(String(v));
    }
  }
  if (size > MAX_SIZE) {
    errs.push(tooLong("", undefined, `must have at most ${MAX_SIZE} bytes`));
  }
  return errs;
}

/** ConfigMap: Name, Data, Age. */
const CONFIGMAP_COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    col("Data", "integer", "Data contains the configuration data."),
    AGE_COLUMN,
  ],
  cells: (o, now) => [
    o.metadata?.name ?? "",
    Object.keys(obj(o.data)).length + Object.keys(obj(o.binaryData)).length,
    age(o, now),
  ],
};

/** The ConfigMap kind. */
export const configMapKind: KindDef = {
  group: "",
  version: "v1",
  kind: "ConfigMap",
  plural: "configmaps",
  singular: "configmap",
  shortNames: ["cm"],
  namespaced: true,
  strategy: {
    tableColumns: CONFIGMAP_COLUMNS,
    validate,
    validateUpdate(obj, old) {
      const errs = validate(obj);
      if (old.immutable === true) {
        if (obj.immutable !== true) {
          errs.push(forbidden("immutable", "field is immutable when `immutable` is set"));
        }
        if (!sameMap(obj.data, old.data) || !sameMap(obj.binaryData, old.binaryData)) {
          errs.push(forbidden("data", "field is immutable when `immutable` is set"));
        }
      }
      return errs;
    },
  },
};
