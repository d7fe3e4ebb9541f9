/** ConfigMap: namespaced string and binary data, optionally immutable. */
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import {
  forbidden,
  invalid,
  isObject,
  stringMap,
  validateConfigKey,
} from "../../generic/field_errors.ts";
import type { KindDef } from "../../generic/kind.ts";
import { CONFIGMAP_COLUMNS } from "../../../http/table/builtin_columns.ts";

const MAX_SIZE = 1024 * 1024;

function validate(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [
    ...stringMap("data", obj.data),
    ...stringMap("binaryData", obj.binaryData),
  ];
  let size = 0;
  const seen = new Set<string>();
  for (const field of ["data", "binaryData"]) {
    const m = obj[field];
    if (!isObject(m)) continue;
    for (const [k, v] of Object.entries(m)) {
      errs.push(...validateConfigKey(`${field}[${k}]`, k));
      if (seen.has(k)) {
        errs.push(invalid(`data[${k}]`, k, "duplicate of key present in binaryData"));
      }
      seen.add(k);
      size += k.length + String(v).length;
    }
  }
  if (size > MAX_SIZE) {
    errs.push({
      type: "FieldValueTooLong",
      field: "",
      detail: `must have at most ${MAX_SIZE} bytes`,
    });
  }
  if (obj.immutable !== undefined && typeof obj.immutable !== "boolean") {
    errs.push(invalid("immutable", obj.immutable, "must be a boolean"));
  }
  return errs;
}

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
        if (
          JSON.stringify(obj.data ?? {}) !== JSON.stringify(old.data ?? {}) ||
          JSON.stringify(obj.binaryData ?? {}) !== JSON.stringify(old.binaryData ?? {})
        ) {
          errs.push(forbidden("data", "field is immutable when `immutable` is set"));
        }
      }
      return errs;
    },
  },
};
