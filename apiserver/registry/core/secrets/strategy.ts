/** Secret: base64 `data`, write-only `stringData`, an immutable `type`. */
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import { isConfigMapKey } from "../../../../shared/api/validation/identifiers.ts";
import {
  forbidden,
  invalid,
  required,
  tooLong,
} from "../../../../shared/api/validation/field_errors.ts";
import type { KindDef, TableColumns } from "../../generic/kind.ts";
import {
  AGE_COLUMN,
  ageOf as age,
  column as col,
  NAME_COLUMN,
  objectOf as obj,
} from "../../generic/table_columns.ts";

const MAX_SIZE = 1024 * 1024;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function utf8ToBase64(s: string): string {
  const bytes = new TextEncoder().encode(s);
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

function validate(obj: KubeObject): FieldError[] {
  // The schema makes data a map of strings and type a string.
  const errs: FieldError[] = [];
  let size = 0;
  if (isObject(obj.data)) {
    for (const [k, v] of Object.entries(obj.data)) {
      for (const m of isConfigMapKey(k)) errs.push(invalid(`data[${k}]`, k, m));
      if (typeof v === "string" && !BASE64.test(v)) {
        errs.push(invalid(`data[${k}]`, "<secret contents redacted>", "illegal base64 data"));
      }
      size += typeof v === "string" ? Math.floor(v.length * 3 / 4) : 0;
    }
  }
  if (size > MAX_SIZE) {
    errs.push(tooLong("data", undefined, `may not be more than ${MAX_SIZE} bytes`));
  }
  if (obj.type === "kubernetes.io/service-account-token") {
    const ann = obj.metadata.annotations ?? {};
    if (!ann["kubernetes.io/service-account.name"]) {
      errs.push(required("metadata.annotations[kubernetes.io/service-account.name]"));
    }
  }
  return errs;
}

/** Moves `stringData` into `data` (base64), as the API server does before storing. */
function canonicalize(obj: KubeObject): void {
  if (isObject(obj.stringData)) {
    const data = isObject(obj.data) ? obj.data : {};
    for (const [k, v] of Object.entries(obj.stringData)) data[k] = utf8ToBase64(String(v));
    obj.data = data;
  }
  delete obj.stringData;
}

/**
 * Validates the secret as it will be stored: `stringData` merged into `data` (as Kubernetes'
 * conversion does), so its keys and sizes are checked like those of `data`.
 */
function validateWithStringData(obj: KubeObject): FieldError[] {
  if (!isObject(obj.stringData)) return validate(obj);
  const merged = structuredClone(obj);
  canonicalize(merged);
  return validate(merged);
}

/** Whether two string maps hold the same entries, in any key order. */
function sameMap(a: unknown, b: unknown): boolean {
  const entries = (m: unknown) =>
    JSON.stringify(Object.entries(isObject(m) ? m : {}).sort(([x], [y]) => x < y ? -1 : 1));
  return entries(a) === entries(b);
}

/** Secret: Name, Type, Data, Age. */
const SECRET_COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    col("Type", "string", "Used to facilitate programmatic handling of secret data."),
    col("Data", "integer", "Data contains the secret data."),
    AGE_COLUMN,
  ],
  cells: (o, now) => [
    o.metadata?.name ?? "",
    String(o.type ?? ""),
    Object.keys(obj(o.data)).length,
    age(o, now),
  ],
};

/** The Secret kind. */
export const secretKind: KindDef = {
  group: "",
  version: "v1",
  kind: "Secret",
  plural: "secrets",
  singular: "secret",
  namespaced: true,
  strategy: {
    tableColumns: SECRET_COLUMNS,
    prepareForCreate(obj) {
      if (!obj.type) obj.type = "Opaque";
    },
    prepareForUpdate(obj, old) {
      if (!obj.type) obj.type = old.type;
    },
    validate: validateWithStringData,
    validateUpdate(obj, old) {
      const errs = validateWithStringData(obj);
      if (obj.type !== old.type) errs.push(invalid("type", obj.type, "field is immutable"));
      if (old.immutable === true) {
        const next = structuredClone(obj);
        canonicalize(next);
        if (obj.immutable !== true) {
          errs.push(forbidden("immutable", "field is immutable when `immutable` is set"));
        }
        if (!sameMap(next.data, old.data)) {
          errs.push(forbidden("data", "field is immutable when `immutable` is set"));
        }
      }
      return errs;
    },
    canonicalize,
    selectableFields: (obj) => ({ type: String(obj.type ?? "") }),
    selectableFieldNames: ["type"],
  },
};
