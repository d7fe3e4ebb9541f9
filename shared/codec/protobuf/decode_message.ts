/**
 * decodeMessage: Protobuf message bytes -> JSON object, driven by the message tables.
 *
 * The JSON is what Kubernetes' Go types render: keys in Go struct order, inlined members merged
 * into their parent, zero-valued `omitempty` value scalars dropped (Go's generated code always
 * writes them), zero scalars kept for pointer and non-`omitempty` fields, an empty Time rendered
 * as `null`. A field absent from the bytes is absent from the JSON. Unknown fields are skipped.
 *
 * @module
 */
import { formatDuration } from "../../time/duration.ts";
import { type FieldInfo, type MessageInfo, messageInfo } from "./message_table.ts";
import { ProtoReader, WIRE_FIXED64, WIRE_LEN, WIRE_VARINT } from "./proto_reader.ts";
import { ProtobufError } from "./protobuf_error.ts";
import { formatRfc3339, JSON_SCHEMA_WRAPPERS, SPECIAL_MESSAGES, toBase64 } from "./well_known.ts";

/**
 * Decodes the bytes of a RawExtension that hold an embedded Protobuf object (they start with the
 * `k8s\0` magic), such as the object of a watch event.
 */
export type EmbeddedDecoder = (bytes: Uint8Array) => Record<string, unknown>;

const MAGIC = [0x6b, 0x38, 0x73, 0x00];
const textDecoder = new TextDecoder("utf-8", { fatal: true });
const MAX_DEPTH = 100;

function malformed(what: string): ProtobufError {
  return new ProtobufError("Malformed", `malformed protobuf data: ${what}`);
}

function requireMessage(name: string): MessageInfo {
  const info = messageInfo(name);
  if (!info) throw new ProtobufError("UnknownKind", `no protobuf message ${name}`);
  return info;
}

function isZero(v: unknown): boolean {
  return v === "" || v === 0 || v === false;
}

function wireTypeOf(f: FieldInfo): number {
  if (f.kind === "double" && !f.map) return WIRE_FIXED64;
  return f.kind === "string" || f.kind === "bytes" || f.kind === "message" || f.map
    ? WIRE_LEN
    : WIRE_VARINT;
}

function parseJsonBytes(bytes: Uint8Array, what: string): unknown {
  try {
    return JSON.parse(textDecoder.decode(bytes));
  } catch {
    throw malformed(`${what} does not hold JSON`);
  }
}

class MessageDecoder {
  constructor(readonly embedded: EmbeddedDecoder | undefined) {}

  message(info: MessageInfo, bytes: Uint8Array, depth: number): Record<string, unknown> {
    if (depth > MAX_DEPTH) throw malformed("messages nested too deeply");
    const values = new Map<FieldInfo, unknown>();
    const r = new ProtoReader(bytes);
    while (!r.done) {
      const [no, wt] = r.tag();
      const f = info.byNumber.get(no);
      if (!f) {
        r.skip(wt);
        continue;
      }
      if (f.repeated) {
        let list = values.get(f) as unknown[] | undefined;
        if (!list) values.set(f, list = []);
        if (wt === WIRE_LEN && (f.kind === "bool" || f.kind === "int32" || f.kind === "int64")) {
          const packed = new ProtoReader(r.bytes());
          while (!packed.done) list.push(this.scalar(f, packed));
          continue;
        }
        if (wt !== wireTypeOf(f)) {
          throw malformed(`wrong wire type ${wt} for ${info.name}.${f.json}`);
        }
        list.push(this.single(f, r, depth));
      } else if (f.map) {
        if (wt !== WIRE_LEN) throw malformed(`wrong wire type ${wt} for ${info.name}.${f.json}`);
        let obj = values.get(f) as Record<string, unknown> | undefined;
        if (!obj) values.set(f, obj = {});
        const [key, value] = this.mapEntry(f, r.bytes(), depth);
        obj[key] = value;
      } else {
        if (wt !== wireTypeOf(f)) {
          throw malformed(`wrong wire type ${wt} for ${info.name}.${f.json}`);
        }
        values.set(f, this.single(f, r, depth));
      }
    }
    const out: Record<string, unknown> = {};
    for (const f of info.fields) {
      const v = values.get(f);
      if (v === undefined) continue;
      if (f.inline) {
        Object.assign(out, v);
        continue;
      }
      if (!f.repeated && !f.map && f.kind !== "message" && !f.keepZero && isZero(v)) continue;
      out[f.json] = v;
    }
    return out;
  }

  mapEntry(f: FieldInfo, bytes: Uint8Array, depth: number): [string, unknown] {
    const r = new ProtoReader(bytes);
    let key = "";
    let value: unknown;
    while (!r.done) {
      const [no, wt] = r.tag();
      if (no === 1 && wt === WIRE_LEN) key = r.string();
      else if (no === 2 && wt === wireTypeOf(f)) value = this.single(f, r, depth);
      else r.skip(wt);
    }
    if (value === undefined) value = this.zero(f, depth);
    return [key, value];
  }

  /** The JSON of a map value missing from its entry. */
  zero(f: FieldInfo, depth: number): unknown {
    switch (f.kind) {
      case "string":
      case "bytes":
        return "";
      case "bool":
        return false;
      case "int32":
      case "int64":
      case "double":
        return 0;
      default:
        return this.messageValue(f.message ?? "", new Uint8Array(0), depth);
    }
  }

  scalar(f: FieldInfo, r: ProtoReader): unknown {
    switch (f.kind) {
      case "bool":
        return r.bool();
      case "int32":
        return r.int32();
      case "double":
        return r.double();
      default:
        return r.int64();
    }
  }

  single(f: FieldInfo, r: ProtoReader, depth: number): unknown {
    switch (f.kind) {
      case "string":
        return r.string();
      case "bytes":
        return toBase64(r.bytes());
      case "message":
        return this.messageValue(f.message ?? "", r.bytes(), depth + 1);
      default:
        return this.scalar(f, r);
    }
  }

  messageValue(name: string, bytes: Uint8Array, depth: number): unknown {
    if (JSON_SCHEMA_WRAPPERS.includes(name)) return this.schemaWrapper(name, bytes, depth);
    if (SPECIAL_MESSAGES.has(name)) return this.special(name, bytes);
    return this.message(requireMessage(name), bytes, depth);
  }

  /** apiextensions/v1's JSON and JSONSchemaPropsOr* values in their JSON form. */
  schemaWrapper(name: string, bytes: Uint8Array, depth: number): unknown {
    const schema = (b: Uint8Array) =>
      this.message(requireMessage("apiextensions.v1.JSONSchemaProps"), b, depth + 1);
    const r = new ProtoReader(bytes);
    let one: unknown;
    const many: unknown[] = [];
    let allows = false;
    let raw: Uint8Array | undefined;
    while (!r.done) {
      const [no, wt] = r.tag();
      if (name === "apiextensions.v1.JSON" && no === 1 && wt === WIRE_LEN) raw = r.bytes();
      else if (name.endsWith("OrBool") && no === 1 && wt === WIRE_VARINT) allows = r.bool();
      else if (name.endsWith("OrBool") && no === 2 && wt === WIRE_LEN) one = schema(r.bytes());
      else if (no === 1 && wt === WIRE_LEN) one = schema(r.bytes());
      else if (no === 2 && wt === WIRE_LEN && name.endsWith("OrArray")) {
        many.push(schema(r.bytes()));
      } else if (no === 2 && wt === WIRE_LEN) many.push(r.string());
      else r.skip(wt);
    }
    if (name === "apiextensions.v1.JSON") {
      return raw && raw.length > 0 ? parseJsonBytes(raw, name) : null;
    }
    if (name.endsWith("OrBool")) return one ?? allows;
    return many.length > 0 ? many : one ?? null;
  }

  special(name: string, bytes: Uint8Array): unknown {
    const r = new ProtoReader(bytes);
    switch (name) {
      case "meta.v1.Time":
      case "meta.v1.MicroTime": {
        if (bytes.length === 0) return null;
        let seconds = 0;
        let nanos = 0;
        while (!r.done) {
          const [no, wt] = r.tag();
          if (no === 1 && wt === WIRE_VARINT) seconds = r.int64();
          else if (no === 2 && wt === WIRE_VARINT) nanos = r.int32();
          else r.skip(wt);
        }
        return formatRfc3339(seconds, nanos, name === "meta.v1.Time" ? 0 : 6);
      }
      case "meta.v1.Duration": {
        let ns = 0;
        while (!r.done) {
          const [no, wt] = r.tag();
          if (no === 1 && wt === WIRE_VARINT) ns = r.int64();
          else r.skip(wt);
        }
        return formatDuration(ns / 1e6);
      }
      case "resource.Quantity": {
        let s = "0";
        while (!r.done) {
          const [no, wt] = r.tag();
          if (no === 1 && wt === WIRE_LEN) s = r.string() || "0";
          else r.skip(wt);
        }
        return s;
      }
      case "intstr.IntOrString": {
        let type = 0;
        let intVal = 0;
        let strVal = "";
        while (!r.done) {
          const [no, wt] = r.tag();
          if (no === 1 && wt === WIRE_VARINT) type = r.int64();
          else if (no === 2 && wt === WIRE_VARINT) intVal = r.int32();
          else if (no === 3 && wt === WIRE_LEN) strVal = r.string();
          else r.skip(wt);
        }
        return type === 1 ? strVal : intVal;
      }
      case "meta.v1.FieldsV1":
      case "runtime.RawExtension": {
        let raw: Uint8Array | undefined;
        while (!r.done) {
          const [no, wt] = r.tag();
          if (no === 1 && wt === WIRE_LEN) raw = r.bytes();
          else r.skip(wt);
        }
        if (!raw || raw.length === 0) return null;
        if (name === "runtime.RawExtension" && MAGIC.every((b, i) => raw[i] === b)) {
          if (!this.embedded) throw malformed("embedded protobuf object without a decoder");
          return this.embedded(raw);
        }
        return parseJsonBytes(raw, name);
      }
      default: { // string lists: ExtraValue, Verbs
        const list: string[] = [];
        while (!r.done) {
          const [no, wt] = r.tag();
          if (no === 1 && wt === WIRE_LEN) list.push(r.string());
          else r.skip(wt);
        }
        return list;
      }
    }
  }
}

/**
 * Decodes `bytes` as the Protobuf message `name` (for example `core.v1.Pod`) into its JSON form.
 * `embedded` decodes RawExtension bytes that hold an enveloped Protobuf object. Throws a
 * `ProtobufError` (`Malformed`) on bad bytes.
 */
export function decodeMessage(
  name: string,
  bytes: Uint8Array,
  embedded?: EmbeddedDecoder,
): Record<string, unknown> {
  return new MessageDecoder(embedded).message(requireMessage(name), bytes, 0);
}
