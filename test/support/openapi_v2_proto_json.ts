/**
 * v2ProtoDocumentToJson: a decoded gnostic `openapi.v2.Document` (as
 * {@link decodeOpenApiV2Proto} returns it) back in Swagger 2.0 JSON form, for comparing the
 * Protobuf document with the JSON one: `Named*` lists become objects, oneof wrappers their
 * content, `_ref` `$ref`, snake_case keys camelCase, and vendor extensions `x-` keys (their
 * `Any.yaml` parsed).
 *
 * @module
 */
import { parse as parseYaml } from "yaml";

// deno-lint-ignore no-explicit-any
type P = Record<string, any>;

function camel(k: string): string {
  return k === "_ref" ? "$ref" : k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
}

const anyValue = (a: P): unknown => parseYaml(a.yaml);

/** Copies plain fields (snake_case to camelCase), vendor extensions, and the `special` ones. */
function plain(o: P, special: Record<string, (v: P) => [string, unknown]> = {}): P {
  const out: P = {};
  for (const [k, v] of Object.entries(o)) {
    if (k === "vendor_extension") {
      for (const e of v as P[]) out[e.name] = anyValue(e.value);
    } else if (special[k]) {
      const [name, value] = special[k](v);
      out[name] = value;
    } else if (k === "default" || k === "example") {
      out[k] = anyValue(v);
    } else if (k === "enum") {
      out.enum = (v as P[]).map(anyValue);
    } else {
      out[camel(k)] = v;
    }
  }
  return out;
}

function named<T>(list: P[] | undefined, value: (v: P) => T): Record<string, T> {
  return Object.fromEntries((list ?? []).map((n) => [n.name, value(n.value ?? {})]));
}

function schema(s: P): P {
  return plain(s, {
    type: (t) => ["type", t.value.length === 1 ? t.value[0] : t.value],
    items: (i) => ["items", i.schema.length === 1 ? schema(i.schema[0]) : i.schema.map(schema)],
    all_of: (l) => ["allOf", l.map(schema)],
    properties: (p) => ["properties", named(p.additional_properties, schema)],
    additional_properties: (a) => [
      "additionalProperties",
      a.schema ? schema(a.schema) : a.boolean ?? false,
    ],
  });
}

function parameter(item: P): P {
  if (item.json_reference) return plain(item.json_reference);
  const p = item.parameter;
  if (p.body_parameter) return plain(p.body_parameter, { schema: (s) => ["schema", schema(s)] });
  const sub = Object.values(p.non_body_parameter)[0] as P;
  return plain(sub);
}

function response(r: P): P {
  if (r.json_reference) return plain(r.json_reference);
  return plain(r.response, { schema: (s) => ["schema", schema(s.schema)] });
}

function operation(op: P): P {
  return plain(op, {
    parameters: (l) => ["parameters", l.map(parameter)],
    responses: (r) => ["responses", named(r.response_code, response)],
  });
}

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch"];

function pathItem(item: P): P {
  const special: Record<string, (v: P) => [string, unknown]> = {
    parameters: (l) => ["parameters", l.map(parameter)],
  };
  for (const m of METHODS) special[m] = (op) => [m, operation(op)];
  return plain(item, special);
}

/** The Swagger 2.0 JSON form of a decoded `openapi.v2.Document`. */
export function v2ProtoDocumentToJson(doc: P): P {
  return plain(doc, {
    info: (i) => ["info", plain(i)],
    paths: (p) => ["paths", named(p.path, pathItem)],
    definitions: (d) => ["definitions", named(d.additional_properties, schema)],
    security: (l) => [
      "security",
      l.map((r: P) => named(r.additional_properties, (a) => a.value ?? [])),
    ],
    security_definitions: (d) => [
      "securityDefinitions",
      named(d.additional_properties, (item) => plain(Object.values(item)[0] as P)),
    ],
  });
}
