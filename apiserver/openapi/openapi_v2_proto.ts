/**
 * encodeOpenApiV2Proto: an OpenAPI v2 JSON document as gnostic's `openapi.v2.Document` message,
 * the form kubectl and client-go ask for with
 * `Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf`.
 *
 * The field numbers are transcribed from gnostic's openapiv2/OpenAPIv2.proto. JSON objects used
 * as maps become a message of repeated `Named*` pairs (field 1) in their order; every `x-` key becomes a `NamedAny`
 * vendor extension whose `Any.yaml` holds the value as JSON text (JSON is YAML, and that is the
 * field readers parse); keys the message has no field for are left out.
 *
 * @module
 */
import { ProtoWriter } from "../../shared/codec/protobuf/proto_writer.ts";

/**
 * How one JSON key is written: a scalar, repeated strings, an `Any` (or repeated), a message (or
 * repeated), or `named`: a map message whose field 1 holds `Named*` pairs with `message` values.
 */
type Field =
  | [no: number, kind: "string" | "bool" | "double" | "int64" | "strings" | "any" | "anys"]
  | [no: number, kind: "msg" | "msgs" | "named", message: string];

/** A message: its fields by JSON key, and the field number of its vendor extensions. */
interface Message {
  fields: Readonly<Record<string, Field>>;
  ext?: number;
}

const COMMON_PARAM: Record<string, Field> = {
  type: [0, "string"],
  format: [0, "string"],
  items: [0, "msg", "PrimitivesItems"],
  collectionFormat: [0, "string"],
  default: [0, "any"],
  maximum: [0, "double"],
  exclusiveMaximum: [0, "bool"],
  minimum: [0, "double"],
  exclusiveMinimum: [0, "bool"],
  maxLength: [0, "int64"],
  minLength: [0, "int64"],
  pattern: [0, "string"],
  maxItems: [0, "int64"],
  minItems: [0, "int64"],
  uniqueItems: [0, "bool"],
  enum: [0, "anys"],
  multipleOf: [0, "double"],
};

/** The primitive parameter fields numbered from `first` on, in the proto's order. */
function numbered(first: number, head: Record<string, Field>): Record<string, Field> {
  const out: Record<string, Field> = {};
  let no = first;
  for (const [k, f] of Object.entries({ ...head, ...COMMON_PARAM })) {
    out[k] = f[1] === "msg" || f[1] === "msgs" || f[1] === "named"
      ? [no++, f[1], f[2]]
      : [no++, f[1]];
  }
  return out;
}

const NON_BODY_HEAD: Record<string, Field> = {
  required: [0, "bool"],
  in: [0, "string"],
  description: [0, "string"],
  name: [0, "string"],
};

/** gnostic's openapi.v2 messages, by name. */
const MESSAGES: Readonly<Record<string, Message>> = {
  Document: {
    fields: {
      swagger: [1, "string"],
      info: [2, "msg", "Info"],
      host: [3, "string"],
      basePath: [4, "string"],
      schemes: [5, "strings"],
      consumes: [6, "strings"],
      produces: [7, "strings"],
      paths: [8, "msg", "Paths"],
      definitions: [9, "named", "Schema"],
      parameters: [10, "named", "Parameter"],
      responses: [11, "named", "Response"],
      security: [12, "msgs", "SecurityRequirement"],
      securityDefinitions: [13, "named", "SecurityDefinitionsItem"],
      tags: [14, "msgs", "Tag"],
      externalDocs: [15, "msg", "ExternalDocs"],
    },
    ext: 16,
  },
  Info: {
    fields: {
      title: [1, "string"],
      version: [2, "string"],
      description: [3, "string"],
      termsOfService: [4, "string"],
    },
    ext: 7,
  },
  ExternalDocs: { fields: { description: [1, "string"], url: [2, "string"] }, ext: 3 },
  Tag: { fields: { name: [1, "string"], description: [2, "string"] }, ext: 4 },
  PathItem: {
    fields: {
      $ref: [1, "string"],
      get: [2, "msg", "Operation"],
      put: [3, "msg", "Operation"],
      post: [4, "msg", "Operation"],
      delete: [5, "msg", "Operation"],
      options: [6, "msg", "Operation"],
      head: [7, "msg", "Operation"],
      patch: [8, "msg", "Operation"],
      parameters: [9, "msgs", "ParametersItem"],
    },
    ext: 10,
  },
  Operation: {
    fields: {
      tags: [1, "strings"],
      summary: [2, "string"],
      description: [3, "string"],
      externalDocs: [4, "msg", "ExternalDocs"],
      operationId: [5, "string"],
      produces: [6, "strings"],
      consumes: [7, "strings"],
      parameters: [8, "msgs", "ParametersItem"],
      responses: [9, "msg", "Responses"],
      schemes: [10, "strings"],
      deprecated: [11, "bool"],
      security: [12, "msgs", "SecurityRequirement"],
    },
    ext: 13,
  },
  BodyParameter: {
    fields: {
      description: [1, "string"],
      name: [2, "string"],
      in: [3, "string"],
      required: [4, "bool"],
      schema: [5, "msg", "Schema"],
    },
    ext: 6,
  },
  HeaderParameterSubSchema: { fields: numbered(1, NON_BODY_HEAD), ext: 22 },
  FormDataParameterSubSchema: {
    fields: numbered(1, { ...NON_BODY_HEAD, allowEmptyValue: [0, "bool"] }),
    ext: 23,
  },
  QueryParameterSubSchema: {
    fields: numbered(1, { ...NON_BODY_HEAD, allowEmptyValue: [0, "bool"] }),
    ext: 23,
  },
  PathParameterSubSchema: { fields: numbered(1, NON_BODY_HEAD), ext: 22 },
  PrimitivesItems: { fields: numbered(1, {}), ext: 18 },
  Response: {
    fields: { description: [1, "string"], schema: [2, "msg", "SchemaItem"] },
    ext: 5,
  },
  Schema: {
    fields: {
      $ref: [1, "string"],
      format: [2, "string"],
      title: [3, "string"],
      description: [4, "string"],
      default: [5, "any"],
      multipleOf: [6, "double"],
      maximum: [7, "double"],
      exclusiveMaximum: [8, "bool"],
      minimum: [9, "double"],
      exclusiveMinimum: [10, "bool"],
      maxLength: [11, "int64"],
      minLength: [12, "int64"],
      pattern: [13, "string"],
      maxItems: [14, "int64"],
      minItems: [15, "int64"],
      uniqueItems: [16, "bool"],
      maxProperties: [17, "int64"],
      minProperties: [18, "int64"],
      required: [19, "strings"],
      enum: [20, "anys"],
      additionalProperties: [21, "msg", "AdditionalPropertiesItem"],
      type: [22, "msg", "TypeItem"],
      items: [23, "msg", "ItemsItem"],
      allOf: [24, "msgs", "Schema"],
      properties: [25, "named", "Schema"],
      discriminator: [26, "string"],
      readOnly: [27, "bool"],
      externalDocs: [29, "msg", "ExternalDocs"],
      example: [30, "any"],
    },
    ext: 31,
  },
  ApiKeySecurity: {
    fields: {
      type: [1, "string"],
      name: [2, "string"],
      in: [3, "string"],
      description: [4, "string"],
    },
    ext: 5,
  },
  BasicAuthenticationSecurity: {
    fields: { type: [1, "string"], description: [2, "string"] },
    ext: 3,
  },
};

/** Writes a length-delimited field around what `body` writes. */
function nested(w: ProtoWriter, no: number, body: () => void): void {
  w.tag(no, 2).fork();
  body();
  w.ldelim();
}

/** `Any { yaml = 2 }` with the value as JSON text. */
function writeAny(w: ProtoWriter, no: number, v: unknown): void {
  nested(w, no, () => w.tag(2, 2).string(JSON.stringify(v)));
}

/** A `Named*` pair: `name = 1`, `value = 2`. */
function writeNamed(w: ProtoWriter, no: number, name: string, value: () => void): void {
  nested(w, no, () => {
    w.tag(1, 2).string(name);
    value();
  });
}

/** The messages whose JSON form is not an object of their fields (oneofs and wrappers). */
const SPECIAL: Readonly<Record<string, (w: ProtoWriter, v: unknown) => void>> = {
  Paths: (w, v) => {
    for (const [k, item] of Object.entries(v as Record<string, unknown>)) {
      if (k.startsWith("x-")) writeNamed(w, 1, k, () => writeAny(w, 2, item));
      else writeNamed(w, 2, k, () => writeMessage(w, 2, "PathItem", item));
    }
  },
  Responses: (w, v) => {
    for (const [k, r] of Object.entries(v as Record<string, unknown>)) {
      if (k.startsWith("x-")) writeNamed(w, 2, k, () => writeAny(w, 2, r));
      else writeNamed(w, 1, k, () => writeMessage(w, 2, "ResponseValue", r));
    }
  },
  ResponseValue: (w, v) => refOr(w, v, 1, "Response"),
  ParametersItem: (w, v) => refOr(w, v, 1, "Parameter"),
  Parameter: (w, v) => {
    const p = v as Record<string, unknown>;
    if (p.in === "body") writeMessage(w, 1, "BodyParameter", p);
    else writeMessage(w, 2, "NonBodyParameter", p);
  },
  NonBodyParameter: (w, v) => {
    const at = { header: 1, formData: 2, query: 3, path: 4 }[String((v as Json).in)] ?? 3;
    const name = ["", "Header", "FormData", "Query", "Path"][at] + "ParameterSubSchema";
    writeMessage(w, at, name, v);
  },
  SchemaItem: (w, v) => writeMessage(w, 1, "Schema", v),
  TypeItem: (w, v) => {
    for (const t of Array.isArray(v) ? v : [v]) w.tag(1, 2).string(String(t));
  },
  ItemsItem: (w, v) => {
    for (const s of Array.isArray(v) ? v : [v]) writeMessage(w, 1, "Schema", s);
  },
  AdditionalPropertiesItem: (w, v) => {
    if (typeof v === "boolean") w.tag(2, 0).bool(v);
    else writeMessage(w, 1, "Schema", v);
  },
  SecurityDefinitionsItem: (w, v) => {
    const type = (v as Json).type;
    if (type === "basic") writeMessage(w, 1, "BasicAuthenticationSecurity", v);
    else if (type === "apiKey") writeMessage(w, 2, "ApiKeySecurity", v);
  },
  SecurityRequirement: (w, v) => {
    for (const [k, scopes] of Object.entries(v as Record<string, string[]>)) {
      writeNamed(w, 1, k, () => nested(w, 2, () => writeStrings(w, 1, scopes)));
    }
  },
};

type Json = Record<string, unknown>;

/** A `$ref` object as `JsonReference` (field 2), anything else as `message` at `no`. */
function refOr(w: ProtoWriter, v: unknown, no: number, message: string): void {
  const o = v as Json;
  if (typeof o.$ref === "string") {
    nested(w, 2, () => {
      w.tag(1, 2).string(o.$ref as string);
      if (typeof o.description === "string") w.tag(2, 2).string(o.description);
    });
  } else writeMessage(w, no, message, o);
}

function writeStrings(w: ProtoWriter, no: number, v: unknown): void {
  for (const s of Array.isArray(v) ? v : [v]) w.tag(no, 2).string(String(s));
}

/** Writes `v` as the fields of `message` (no length prefix). */
function writeFields(w: ProtoWriter, message: string, v: unknown): void {
  const special = SPECIAL[message];
  if (special) return special(w, v);
  const m = MESSAGES[message];
  for (const [k, value] of Object.entries(v as Json)) {
    if (value === undefined || value === null) continue;
    const f = m.fields[k];
    if (!f) {
      if (m.ext !== undefined && k.startsWith("x-")) {
        writeNamed(w, m.ext, k, () => writeAny(w, 2, value));
      }
      continue;
    }
    writeField(w, f, value);
  }
}

function writeField(w: ProtoWriter, f: Field, value: unknown): void {
  const no = f[0];
  switch (f[1]) {
    case "string":
      return void w.tag(no, 2).string(String(value));
    case "bool":
      return void w.tag(no, 0).bool(Boolean(value));
    case "double":
      return void w.tag(no, 1).double(Number(value));
    case "int64":
      return void w.tag(no, 0).int64(Number(value));
    case "strings":
      return writeStrings(w, no, value);
    case "any":
      return writeAny(w, no, value);
    case "anys":
      for (const e of value as unknown[]) writeAny(w, no, e);
      return;
    case "msg":
      return writeMessage(w, no, f[2], value);
    case "msgs":
      for (const e of value as unknown[]) writeMessage(w, no, f[2], e);
      return;
    case "named":
      nested(w, no, () => {
        for (const [name, e] of Object.entries(value as Json)) {
          writeNamed(w, 1, name, () => writeMessage(w, 2, f[2], e));
        }
      });
  }
}

function writeMessage(w: ProtoWriter, no: number, message: string, v: unknown): void {
  nested(w, no, () => writeFields(w, message, v));
}

/** Encodes an OpenAPI v2 JSON document as gnostic's `openapi.v2.Document`. */
export function encodeOpenApiV2Proto(doc: Record<string, unknown>): Uint8Array<ArrayBuffer> {
  const w = new ProtoWriter();
  writeFields(w, "Document", doc);
  return w.finish();
}
