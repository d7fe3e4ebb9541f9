/**
 * encodeMessage: JSON object -> Protobuf message bytes, driven by the message tables.
 *
 * Only fields present in the JSON are written (an explicit empty string or `false` is written;
 * an absent field is not). Go's decoder reads an absent value field as its zero value, so this is
 * what Go would make of Go's own, fuller, encoding. A `null` Time is written as an empty Time, as
 * Go writes its zero time. Fields are written in field-number order and map entries sorted by key,
 * as Go's generated code does. Unknown JSON fields are ignored.
 *
 * @module
 */
import { parseDuration } from "../../time/duration.ts";
import { type FieldInfo, type MessageInfo, messageInfo } from "./message_table.ts";
import { ProtoWriter } from "./proto_writer.ts";
import { WIRE_FIXED64, WIRE_LEN, WIRE_VARINT } from "./proto_reader.ts";
import { ProtobufError } from "./protobuf_error.ts";
import { fromBase64, GO_ZERO_TIME_SECONDS, parseRfc3339, SPECIAL_MESSAGES } from "./well_known.ts";
import { isObject } from "../../json/is_object.ts";

/**
 * Encodes an object that is already Protobuf (the envelope of an embedded object, such as a watch
 * event's object) when it stands for a RawExtension.
 */
export type EmbeddedEncoder = (obj: Record<string, unknown>) => Uint8Array;

function invalid(path: string, what: string): ProtobufError {
  return new ProtobufError("InvalidValue", `${path || "<root>"}: ${what}`);
}

function requireMessage(name: string): MessageInfo {
  const info = messageInfo(name);
  if (!info) throw new ProtobufError("UnknownKind", `no protobuf message ${name}`);
  return info;
}

const jsonKeysCache = new Map<string, ReadonlySet<string>>();
const mapValueFields = new WeakMap<FieldInfo, FieldInfo>();

/** The field of a map entry's value (number 2) for the map field `f`. */
function mapValueField(f: FieldInfo): FieldInfo {
  let v = mapValueFields.get(f);
  if (!v) {
    v = { ...f, no: 2 };
    mapValueFields.set(f, v);
  }
  return v;
}

/** JSON keys a message takes from its object, including those of inlined members. */
function jsonKeys(info: MessageInfo): ReadonlySet<string> {
  let keys = jsonKeysCache.get(info.name);
  if (keys) return keys;
  const set = new Set<string>();
  for (const f of info.fields) {
    if (f.inline) {
      for (const k of jsonKeys(requireMessage(f.message ?? ""))) set.add(k);
    } else set.add(f.json);
  }
  keys = set;
  jsonKeysCache.set(info.name, keys);
  return keys;
}

/** The fields of `info` that `obj` holds, in field-number order. */
function presentFields(info: MessageInfo, obj: Record<string, unknown>): FieldInfo[] {
  // Objects are sparse beside their messages (a Container sets a few of its fields): walking the
  // object's keys is cheaper than looking up every field of the message.
  const present: FieldInfo[] = [];
  for (const k in obj) {
    const f = info.byJson.get(k);
    if (f && obj[k] !== undefined) present.push(f);
  }
  for (const f of info.inlineFields) {
    for (const k of jsonKeys(requireMessage(f.message ?? ""))) {
      if (obj[k] !== undefined && obj[k] !== null) {
        present.push(f);
        break;
      }
    }
  }
  return present.length > 1 ? present.sort((a, b) => a.no - b.no) : present;
}

class MessageEncoder {
  /**
   * @param paths whether to build each value's path: only for the message of an error (see
   *   {@link writeMessage}), since building them costs more than the encoding.
   */
  constructor(
    readonly w: ProtoWriter,
    readonly embedded: EmbeddedEncoder | undefined,
    readonly paths: boolean,
  ) {}

  body(info: MessageInfo, obj: Record<string, unknown>, path: string): void {
    for (const f of presentFields(info, obj)) {
      if (f.inline) {
        this.w.tag(f.no, WIRE_LEN).fork();
        this.body(requireMessage(f.message ?? ""), obj, path);
        this.w.ldelim();
        continue;
      }
      const v = obj[f.json];
      const p = this.paths ? (path ? `${path}.${f.json}` : f.json) : "";
      if (v === null) {
        if (
          !f.repeated && !f.map &&
          (f.message === "meta.v1.Time" || f.message === "meta.v1.MicroTime")
        ) {
          this.w.tag(f.no, WIRE_LEN).uint32(0);
        }
        continue;
      }
      if (f.repeated) {
        if (!Array.isArray(v)) throw invalid(p, "expected an array");
        for (let i = 0; i < v.length; i++) this.single(f, v[i], this.paths ? `${p}[${i}]` : "");
      } else if (f.map) {
        if (!isObject(v)) throw invalid(p, "expected an object");
        for (const key of Object.keys(v).sort()) {
          const item = v[key];
          this.w.tag(f.no, WIRE_LEN).fork();
          this.w.tag(1, WIRE_LEN).string(key);
          if (item !== null && item !== undefined) {
            this.single(mapValueField(f), item, this.paths ? `${p}[${key}]` : "");
          }
          this.w.ldelim();
        }
      } else {
        this.single(f, v, p);
      }
    }
  }

  /** Writes one value of field `f` (one element of a repeated field, or one map value). */
  single(f: FieldInfo, v: unknown, path: string): void {
    const w = this.w;
    switch (f.kind) {
      case "string":
        if (typeof v !== "string") throw invalid(path, "expected a string");
        w.tag(f.no, WIRE_LEN).string(v);
        return;
      case "bool":
        if (typeof v !== "boolean") throw invalid(path, "expected a boolean");
        w.tag(f.no, WIRE_VARINT).bool(v);
        return;
      case "int32":
        if (!Number.isInteger(v) || (v as number) < -0x80000000 || (v as number) > 0x7fffffff) {
          throw invalid(path, "expected a 32-bit integer");
        }
        w.tag(f.no, WIRE_VARINT).int32(v as number);
        return;
      case "int64":
        if (!Number.isSafeInteger(v)) throw invalid(path, "expected an integer");
        w.tag(f.no, WIRE_VARINT).int64(v as number);
        return;
      case "double":
        if (typeof v !== "number" || !Number.isFinite(v)) throw invalid(path, "expected a number");
        w.tag(f.no, WIRE_FIXED64).double(v);
        return;
      case "bytes": {
        if (typeof v !== "string") throw invalid(path, "expected a base64 string");
        const b = fromBase64(v);
        if (!b) throw invalid(path, "illegal base64 data");
        w.tag(f.no, WIRE_LEN).bytes(b);
        return;
      }
      case "message": {
        const name = f.message ?? "";
        w.tag(f.no, WIRE_LEN).fork();
        if (SPECIAL_MESSAGES.has(name)) this.special(name, v, path);
        else {
          if (!isObject(v)) throw invalid(path, "expected an object");
          this.body(requireMessage(name), v, path);
        }
        w.ldelim();
        return;
      }
    }
  }

  /** Writes the body of a message with its own JSON form. */
  special(name: string, v: unknown, path: string): void {
    const w = this.w;
    switch (name) {
      case "meta.v1.Time":
      case "meta.v1.MicroTime": {
        const t = typeof v === "string" ? parseRfc3339(v) : undefined;
        if (!t) throw invalid(path, "expected an RFC 3339 timestamp");
        if (t.seconds === GO_ZERO_TIME_SECONDS && t.nanos === 0) return;
        w.tag(1, WIRE_VARINT).int64(t.seconds);
        w.tag(2, WIRE_VARINT).int32(t.nanos);
        return;
      }
      case "meta.v1.Duration": {
        let ns: bigint;
        try {
          ns = parseDuration(typeof v === "string" ? v : "");
        } catch {
          throw invalid(path, "expected a duration");
        }
        if (ns !== 0n) w.tag(1, WIRE_VARINT).int64(Number(ns));
        return;
      }
      case "resource.Quantity":
        if (typeof v === "number" && Number.isFinite(v)) {
          w.tag(1, WIRE_LEN).string(String(v));
        } else if (typeof v === "string") w.tag(1, WIRE_LEN).string(v);
        else throw invalid(path, "expected a quantity");
        return;
      case "intstr.IntOrString":
        if (typeof v === "number") {
          if (!Number.isInteger(v) || v < -0x80000000 || v > 0x7fffffff) {
            throw invalid(path, "expected a 32-bit integer or a string");
          }
          w.tag(1, WIRE_VARINT).int32(0);
          w.tag(2, WIRE_VARINT).int32(v);
          w.tag(3, WIRE_LEN).string("");
        } else if (typeof v === "string") {
          w.tag(1, WIRE_VARINT).int32(1);
          w.tag(2, WIRE_VARINT).int32(0);
          w.tag(3, WIRE_LEN).string(v);
        } else throw invalid(path, "expected an integer or a string");
        return;
      case "meta.v1.FieldsV1":
        w.tag(1, WIRE_LEN).string(JSON.stringify(v));
        return;
      case "runtime.RawExtension":
        if (v instanceof Uint8Array) w.tag(1, WIRE_LEN).bytes(v);
        else if (this.embedded && isObject(v) && v.apiVersion !== undefined) {
          w.tag(1, WIRE_LEN).bytes(this.embedded(v));
        } else w.tag(1, WIRE_LEN).string(JSON.stringify(v));
        return;
      case "apiextensions.v1.JSON":
      case "apiextensions.v1.JSONSchemaPropsOrArray":
      case "apiextensions.v1.JSONSchemaPropsOrBool":
      case "apiextensions.v1.JSONSchemaPropsOrStringArray":
        writeSchemaWrapper(this, name, v, path);
        return;
      default: // string lists: ExtraValue, Verbs
        if (!Array.isArray(v)) throw invalid(path, "expected an array of strings");
        v.forEach((s, i) => {
          if (typeof s !== "string") throw invalid(`${path}[${i}]`, "expected a string");
          w.tag(1, WIRE_LEN).string(s);
        });
    }
  }
}

/** Writes one JSONSchemaProps as field `no` of the wrapper being written. */
function writeSchema(e: MessageEncoder, no: number, v: unknown, path: string): void {
  if (!isObject(v)) throw invalid(path, "expected an object");
  e.w.tag(no, WIRE_LEN).fork();
  e.body(requireMessage("apiextensions.v1.JSONSchemaProps"), v, path);
  e.w.ldelim();
}

/** The Protobuf form of apiextensions/v1's JSON and JSONSchemaPropsOr* values. */
function writeSchemaWrapper(e: MessageEncoder, name: string, v: unknown, path: string): void {
  const w = e.w;
  switch (name) {
    case "apiextensions.v1.JSON":
      w.tag(1, WIRE_LEN).bytes(new TextEncoder().encode(JSON.stringify(v)));
      return;
    case "apiextensions.v1.JSONSchemaPropsOrArray":
      if (Array.isArray(v)) v.forEach((s, i) => writeSchema(e, 2, s, `${path}[${i}]`));
      else writeSchema(e, 1, v, path);
      return;
    case "apiextensions.v1.JSONSchemaPropsOrBool":
      w.tag(1, WIRE_VARINT).bool(typeof v === "boolean" ? v : true);
      if (typeof v !== "boolean") writeSchema(e, 2, v, path);
      return;
    default: // JSONSchemaPropsOrStringArray
      if (!Array.isArray(v)) return writeSchema(e, 1, v, path);
      v.forEach((s, i) => {
        if (typeof s !== "string") throw invalid(`${path}[${i}]`, "expected a string");
        w.tag(2, WIRE_LEN).string(s);
      });
  }
}

/**
 * Encodes `obj` as the Protobuf message `name` (for example `core.v1.Pod`). `embedded` encodes
 * the objects held by RawExtension fields (a watch event's object); without it they are written
 * as JSON text, as Go does for objects that arrived as JSON.
 */
export function encodeMessage(
  name: string,
  obj: Record<string, unknown>,
  embedded?: EmbeddedEncoder,
): Uint8Array<ArrayBuffer> {
  const w = new ProtoWriter();
  writeMessage(w, name, obj, embedded);
  return w.finish();
}

/** Writes `obj` as the body of the Protobuf message `name` into `w`, as {@link encodeMessage}. */
export function writeMessage(
  w: ProtoWriter,
  name: string,
  obj: Record<string, unknown>,
  embedded?: EmbeddedEncoder,
): void {
  const info = requireMessage(name);
  if (!isObject(obj)) throw invalid("", "expected an object");
  try {
    new MessageEncoder(w, embedded, false).body(info, obj, "");
  } catch (err) {
    if (!(err instanceof ProtobufError) || err.reason !== "InvalidValue") throw err;
    // Encode again, building paths, for an error that names the value.
    new MessageEncoder(new ProtoWriter(), embedded, true).body(info, obj, "");
    throw err;
  }
}
