/**
 * validateFields: checks a decoded object against its schema, the way decoding into typed Go
 * structs does. Unknown fields are removed and reported by path; `null` values are removed (they
 * mean "unset"); quantities are stored in canonical form (`1000m` → `1`, numbers become
 * strings); wrong types, unsupported enum values and missing required fields become field
 * errors.
 *
 * @module
 */
import type { FieldError } from "../../errors/status_error.ts";
import { canonicalQuantity, QuantityParseError } from "../quantity.ts";
import { invalid, notSupported, required, typeInvalid } from "../validation/field_errors.ts";
import type { FieldSchema, SchemaModel, TypeSchema } from "./model.ts";
import { isObject } from "../../json/is_object.ts";

/** What validateFields found. */
export interface FieldValidationResult {
  /** Paths of unknown fields (removed from the object), e.g. `spec.foo`. */
  unknown: string[];
  /** Type errors, unsupported values and missing required fields. */
  errors: FieldError[];
}

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:[Zz]|[+-]\d{2}:\d{2})$/;

function join(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}

function typeName(f: FieldSchema): string {
  switch (f.type) {
    case "ref":
    case "map":
      return "object";
    case "intOrString":
      return "integer or string";
    case "quantity":
      return "string";
    default:
      return f.type;
  }
}

/** Options of validateFields. */
export interface ValidateFieldsOptions {
  /**
   * Check the schema's required fields (default true). Required fields under the top-level
   * `status` are never checked: status is written by the server, and clients send it empty
   * (kubectl's review requests do).
   */
  required?: boolean;
}

class Walker {
  readonly unknown: string[] = [];
  readonly errors: FieldError[] = [];
  constructor(readonly model: SchemaModel, readonly checkRequired = true) {}

  typeError(path: string, value: unknown, f: FieldSchema): void {
    this.errors.push(
      typeInvalid(
        path,
        typeof value === "object" ? typeof value : value,
        `must be of type ${typeName(f)}`,
      ),
    );
  }

  object(t: TypeSchema, obj: Record<string, unknown>, path: string): void {
    if (t.preserveUnknownFields) return;
    for (const key of Object.keys(obj)) {
      const f = t.properties[key];
      const p = join(path, key);
      if (!f) {
        this.unknown.push(p);
        delete obj[key];
        continue;
      }
      if (obj[key] === null) {
        delete obj[key];
        continue;
      }
      const v = this.value(f, obj[key], p);
      if (v !== obj[key]) obj[key] = v;
    }
    const serverOwned = path === "status" || path.startsWith("status.");
    for (const r of this.checkRequired && !serverOwned ? t.required : []) {
      if (obj[r] === undefined) {
        this.errors.push(required(join(path, r)));
      }
    }
  }

  /** Checks one value; returns it (possibly converted). */
  value(field: FieldSchema, v: unknown, path: string): unknown {
    const f = this.model.resolve(field);
    switch (f.type) {
      case "any":
        return v;
      case "string":
        this.string(f, v, path);
        return v;
      case "boolean":
        if (typeof v !== "boolean") this.typeError(path, v, f);
        return v;
      case "number":
        if (typeof v !== "number") this.typeError(path, v, f);
        return v;
      case "integer":
        if (typeof v !== "number" || !Number.isInteger(v)) this.typeError(path, v, f);
        else if (f.format === "int32" && (v < INT32_MIN || v > INT32_MAX)) {
          this.errors.push(invalid(path, v, "must fit in a 32-bit integer"));
        }
        return v;
      case "intOrString":
        if (typeof v !== "string" && !(typeof v === "number" && Number.isInteger(v))) {
          this.typeError(path, v, f);
        }
        return v;
      case "quantity":
        return this.quantity(f, v, path);
      case "array":
        return this.array(f, v, path);
      case "map":
        return this.map(f, v, path);
      case "ref": {
        const t = this.model.type(f.ref!);
        if (!isObject(v)) {
          this.typeError(path, v, f);
          return v;
        }
        if (t) this.object(t, v, path);
        return v;
      }
    }
  }

  /** Checks a string value (its type, enum and format). */
  string(f: FieldSchema, v: unknown, path: string): void {
    if (typeof v !== "string") {
      this.typeError(path, v, f);
    } else if (f.enum && !f.enum.includes(v)) {
      this.errors.push(notSupported(path, v, f.enum));
    } else if (f.format === "byte" && !BASE64.test(v.replace(/\s/g, ""))) {
      this.errors.push(invalid(path, "<redacted>", "must be base64 encoded"));
    } else if (f.format === "date-time" && !RFC3339.test(v)) {
      this.errors.push(invalid(path, v, "must be an RFC 3339 time"));
    }
  }

  /** Checks a quantity; returns it in canonical form when it parses. */
  quantity(f: FieldSchema, v: unknown, path: string): unknown {
    if (typeof v !== "string" && !(typeof v === "number" && Number.isFinite(v))) {
      this.typeError(path, v, f);
      return v;
    }
    // Stored in canonical form, as decoding into resource.Quantity and encoding again does.
    const text = typeof v === "number" ? String(v) : v.trim();
    try {
      return canonicalQuantity(text);
    } catch (err) {
      if (!(err instanceof QuantityParseError)) throw err;
      this.errors.push(invalid(path, v, err.message));
      return v;
    }
  }

  /** Checks an array and its items (nulls skipped); returns it. */
  array(f: FieldSchema, v: unknown, path: string): unknown {
    if (!Array.isArray(v)) {
      this.typeError(path, v, f);
      return v;
    }
    for (let i = 0; i < v.length; i++) {
      const p = `${path}[${i}]`;
      if (v[i] === null) continue;
      const x = this.value(f.items!, v[i], p);
      if (x !== v[i]) v[i] = x;
    }
    return v;
  }

  /** Checks a map and its values (a null value becomes its type's zero); returns it. */
  map(f: FieldSchema, v: unknown, path: string): unknown {
    if (!isObject(v)) {
      this.typeError(path, v, f);
      return v;
    }
    for (const [k, x] of Object.entries(v)) {
      if (x === null) {
        v[k] = zeroOf(this.model.resolve(f.values!));
        continue;
      }
      const y = this.value(f.values!, x, `${path}[${k}]`);
      if (y !== x) v[k] = y;
    }
    return v;
  }
}

function zeroOf(f: FieldSchema): unknown {
  if (f.type === "string") return "";
  if (f.type === "integer" || f.type === "number") return 0;
  if (f.type === "boolean") return false;
  return null;
}

/**
 * Validates `obj` (an object of type `type`) in place: removes unknown fields and nulls,
 * canonicalises quantities, and returns the unknown field paths and the field errors.
 */
export function validateFields(
  model: SchemaModel,
  type: TypeSchema,
  obj: Record<string, unknown>,
  options: ValidateFieldsOptions = {},
): FieldValidationResult {
  const w = new Walker(model, options.required ?? true);
  w.object(type, obj, "");
  return { unknown: w.unknown, errors: w.errors };
}
