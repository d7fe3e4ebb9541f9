/**
 * JSON plus an OpenAPI (structural) schema to CEL values and CEL type declarations, following
 * Kubernetes' type mapping: integers become 64-bit ints, `byte`/`date`/`date-time`/`duration`
 * formats become bytes/timestamps/durations, int-or-string and preserved unknown fields are
 * dynamic, list-type `set` and `map` compare without regard to order, and property names are
 * escaped (unreachable ones are dropped).
 *
 * @module
 */
import type { Environment } from "@marcbachmann/cel-js";
import { escapePropertyName } from "./escaping.ts";
import { celEquals } from "./library/compare.ts";
import { Duration } from "./library/runtime_types.ts";
import { DurationParseError, parseDuration } from "../../shared/time/duration.ts";
import { fromBase64 } from "../../shared/codec/protobuf/well_known.ts";

/** The subset of an OpenAPI v3 schema the CEL module reads. */
export interface CelSchema {
  /** `object`, `array`, `string`, `integer`, `number`, `boolean`. */
  type?: string;
  /** String format: `byte`, `date`, `date-time`, `duration`, ... */
  format?: string;
  /** Object properties. */
  properties?: Record<string, CelSchema>;
  /** Map values (a schema) or `true` for any. */
  additionalProperties?: CelSchema | boolean;
  /** Array items. */
  items?: CelSchema;
  /** Whether null is allowed. */
  nullable?: boolean;
  /** Size limits used by the cost estimator. */
  maxLength?: number;
  /** Size limits used by the cost estimator. */
  maxItems?: number;
  /** Size limits used by the cost estimator. */
  maxProperties?: number;
  /** Enumerated values. */
  enum?: unknown[];
  /** `x-kubernetes-int-or-string`. */
  "x-kubernetes-int-or-string"?: boolean;
  /** `x-kubernetes-preserve-unknown-fields`. */
  "x-kubernetes-preserve-unknown-fields"?: boolean;
  /** `x-kubernetes-embedded-resource`. */
  "x-kubernetes-embedded-resource"?: boolean;
  /** `x-kubernetes-list-type`: `atomic`, `set` or `map`. */
  "x-kubernetes-list-type"?: string;
  /** `x-kubernetes-list-map-keys`. */
  "x-kubernetes-list-map-keys"?: string[];
}

/**
 * Parses a Go duration string (`1h30m`, `-1.5s`) with the shared Go parser; undefined when
 * invalid. Go's int64-nanosecond range lies well inside CEL's, which range_checks.ts enforces
 * on results.
 */
export function parseGoDuration(s: string): Duration | undefined {
  let total: bigint;
  try {
    total = parseDuration(s);
  } catch (err) {
    if (err instanceof DurationParseError) return undefined;
    throw err;
  }
  const seconds = total / 1_000_000_000n;
  return new Duration(seconds, Number(total - seconds * 1_000_000_000n));
}

/** Converts untyped JSON to CEL values: integral numbers become ints, objects maps. */
export function jsonToCel(v: unknown): unknown {
  if (typeof v === "number") return Number.isInteger(v) ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map(jsonToCel);
  if (v && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = jsonToCel(x);
    return out;
  }
  return v === undefined ? null : v;
}

function isDynamic(s: CelSchema): boolean {
  return s["x-kubernetes-int-or-string"] === true ||
    (s["x-kubernetes-preserve-unknown-fields"] === true && !s.properties && !s.items &&
      s.additionalProperties === undefined) ||
    (s.type === undefined && !s.properties && !s.items);
}

function embeddedProperties(s: CelSchema): Record<string, CelSchema> {
  const props = { ...(s.properties ?? {}) };
  if (s["x-kubernetes-embedded-resource"]) {
    props.apiVersion ??= { type: "string" };
    props.kind ??= { type: "string" };
    props.metadata ??= {
      type: "object",
      properties: { name: { type: "string" }, generateName: { type: "string" } },
    };
  }
  return props;
}

/** Makes a Set-backed list whose membership (and so equality) uses CEL equality. */
function unorderedList(items: unknown[], primitive: boolean): Set<unknown> {
  const set = new Set(items);
  if (!primitive || set.size !== items.length) {
    // Objects (list-type map) or duplicate values: compare structurally.
    const s = new Set(items) as Set<unknown> & { has(v: unknown): boolean };
    Object.defineProperty(s, "has", {
      value: (v: unknown) => items.some((x) => celEquals(x, v)),
    });
    return s;
  }
  return set;
}

/** Converts a JSON value to its CEL value under `schema` (or untyped when absent). */
export function toCelValue(v: unknown, schema?: CelSchema, escape = true): unknown {
  if (v === null || v === undefined) return null;
  if (!schema || isDynamic(schema)) return jsonToCel(v);
  switch (schema.type) {
    case "integer":
      return typeof v === "number" && Number.isInteger(v) ? BigInt(v) : v;
    case "number":
      return typeof v === "number" ? v : v;
    case "string": {
      if (typeof v !== "string") return jsonToCel(v);
      switch (schema.format) {
        case "byte":
          return fromBase64(v) ?? v;
        case "date":
        case "date-time": {
          const d = new Date(schema.format === "date" ? `${v}T00:00:00Z` : v);
          return Number.isNaN(d.getTime()) ? v : d;
        }
        case "duration":
          return parseGoDuration(v) ?? v;
      }
      return v;
    }
    case "array": {
      if (!Array.isArray(v)) return jsonToCel(v);
      const items = v.map((x) => toCelValue(x, schema.items, escape));
      const lt = schema["x-kubernetes-list-type"];
      if (lt === "set" || lt === "map") {
        return unorderedList(items, lt === "set" && items.every((x) => typeof x !== "object"));
      }
      return items;
    }
    case "object": {
      if (typeof v !== "object" || Array.isArray(v)) return jsonToCel(v);
      const src = v as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      if (schema.properties || schema["x-kubernetes-embedded-resource"]) {
        const props = embeddedProperties(schema);
        for (const [k, x] of Object.entries(src)) {
          if (x === null || x === undefined) continue;
          const ps = props[k];
          const name = escape ? escapePropertyName(k) : k;
          if (name === undefined) continue;
          if (ps) out[name] = toCelValue(x, ps, escape);
          else if (schema["x-kubernetes-preserve-unknown-fields"]) out[name] = jsonToCel(x);
        }
        return out;
      }
      const ap = typeof schema.additionalProperties === "object"
        ? schema.additionalProperties
        : undefined;
      for (const [k, x] of Object.entries(src)) {
        if (x !== undefined) out[k] = toCelValue(x, ap, escape);
      }
      return out;
    }
    case "boolean":
      return v;
  }
  return jsonToCel(v);
}

const usedTypeNames = new Set<string>();

/** Declares the CEL types for `schema` on `env`; returns the CEL type name to use. */
export function declareSchemaType(
  env: Environment,
  schema: CelSchema | undefined,
  path: string,
  declared: Map<CelSchema, string> = new Map(),
  escape = true,
): string {
  if (!schema || isDynamic(schema)) return "dyn";
  const known = declared.get(schema);
  if (known) return known;
  const t = declareUncached(env, schema, path, declared, escape);
  declared.set(schema, t);
  return t;
}

function declareUncached(
  env: Environment,
  schema: CelSchema,
  path: string,
  declared: Map<CelSchema, string>,
  escape: boolean,
): string {
  switch (schema.type) {
    case "integer":
      return "int";
    case "number":
      return "double";
    case "boolean":
      return "bool";
    case "string":
      switch (schema.format) {
        case "byte":
          return "bytes";
        case "date":
        case "date-time":
          return "google.protobuf.Timestamp";
        case "duration":
          return "google.protobuf.Duration";
      }
      return "string";
    case "array":
      return `list<${declareSchemaType(env, schema.items, `${path}_items`, declared, escape)}>`;
    case "object": {
      if (schema.properties || schema["x-kubernetes-embedded-resource"]) {
        if (schema["x-kubernetes-preserve-unknown-fields"]) return "dyn";
        const fields: Record<string, string> = {};
        for (const [k, ps] of Object.entries(embeddedProperties(schema))) {
          const name = escape ? escapePropertyName(k) : k;
          if (name === undefined) continue;
          fields[name] = declareSchemaType(
            env,
            ps,
            `${path}.${k.replace(/[^\w]/g, "_")}`,
            declared,
            escape,
          );
        }
        let name = path, n = 1;
        while (usedTypeNames.has(name)) name = `${path}_${++n}`;
        usedTypeNames.add(name);
        env.registerType({ name, fields });
        env.registerOperator(`${name} == ${name}`, (a: unknown, b: unknown) => celEquals(a, b));
        return name;
      }
      if (typeof schema.additionalProperties === "object") {
        return `map<string, ${
          declareSchemaType(env, schema.additionalProperties, `${path}_values`, declared, escape)
        }>`;
      }
      return "map<string, dyn>";
    }
  }
  return "dyn";
}
