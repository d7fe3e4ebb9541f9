/**
 * encodeObject and decodeObject: Kubernetes objects in the Protobuf envelope, the body of
 * `application/vnd.kubernetes.protobuf` requests and responses: the magic `k8s\0` followed by a
 * `runtime.Unknown{typeMeta{apiVersion, kind}, raw, contentEncoding, contentType}` whose `raw` is
 * the object's own message.
 *
 * @module
 */
import { decodeMessage } from "./decode_message.ts";
import { writeMessage } from "./encode_message.ts";
import { protobufMessageName } from "./has_protobuf.ts";
import { ProtoReader, WIRE_LEN } from "./proto_reader.ts";
import { ProtoWriter } from "./proto_writer.ts";
import { ProtobufError } from "./protobuf_error.ts";

/** The four bytes every enveloped Protobuf object starts with: `k8s\0`. */
export const PROTOBUF_MAGIC: Uint8Array<ArrayBuffer> = new Uint8Array([0x6b, 0x38, 0x73, 0x00]);

/** The Protobuf media type, the only `contentType` an envelope may name. */
export const PROTOBUF_MEDIA_TYPE = "application/vnd.kubernetes.protobuf";

/** The fields of a decoded envelope (`runtime.Unknown`). */
export interface ProtobufEnvelope {
  /** `typeMeta.apiVersion`. */
  apiVersion: string;
  /** `typeMeta.kind`. */
  kind: string;
  /** The object's own message bytes. */
  raw: Uint8Array;
  /** `contentEncoding`; empty means none. */
  contentEncoding: string;
  /** `contentType`; empty means the Protobuf media type. */
  contentType: string;
}

/** True when `bytes` starts with the `k8s\0` magic. */
export function hasProtobufMagic(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x6b && bytes[1] === 0x38 && bytes[2] === 0x73 &&
    bytes[3] === 0x00;
}

/** Reads the envelope of `bytes` without decoding the object; throws `BadPrefix` or `Malformed`. */
export function decodeEnvelope(bytes: Uint8Array): ProtobufEnvelope {
  if (!hasProtobufMagic(bytes)) {
    throw new ProtobufError(
      "BadPrefix",
      "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]",
    );
  }
  const env: ProtobufEnvelope = {
    apiVersion: "",
    kind: "",
    raw: new Uint8Array(0),
    contentEncoding: "",
    contentType: "",
  };
  const r = new ProtoReader(bytes, 4);
  while (!r.done) {
    const [no, wt] = r.tag();
    if (wt !== WIRE_LEN || no > 4) {
      r.skip(wt);
      continue;
    }
    if (no === 1) {
      const t = new ProtoReader(r.bytes());
      while (!t.done) {
        const [tno, twt] = t.tag();
        if (tno === 1 && twt === WIRE_LEN) env.apiVersion = t.string();
        else if (tno === 2 && twt === WIRE_LEN) env.kind = t.string();
        else t.skip(twt);
      }
    } else if (no === 2) env.raw = r.bytes();
    else if (no === 3) env.contentEncoding = r.string();
    else env.contentType = r.string();
  }
  return env;
}

/**
 * Decodes an enveloped Protobuf object into its JSON form, with `apiVersion` and `kind` taken from
 * the envelope. Throws a `ProtobufError`: `BadPrefix` without the magic, `UnknownKind` for a kind
 * without Protobuf, `Malformed` for bad bytes or an unsupported content type or encoding.
 */
export function decodeObject(bytes: Uint8Array): Record<string, unknown> {
  const env = decodeEnvelope(bytes);
  if (env.contentEncoding !== "") {
    throw new ProtobufError(
      "Malformed",
      `unsupported content encoding ${JSON.stringify(env.contentEncoding)}`,
    );
  }
  if (env.contentType !== "" && env.contentType !== PROTOBUF_MEDIA_TYPE) {
    throw new ProtobufError(
      "Malformed",
      `unsupported content type ${JSON.stringify(env.contentType)}`,
    );
  }
  const name = protobufMessageName(env.apiVersion, env.kind);
  if (!name) {
    throw new ProtobufError(
      "UnknownKind",
      `no protobuf encoding for kind ${JSON.stringify(env.kind)} in version ${
        JSON.stringify(env.apiVersion)
      }`,
    );
  }
  return {
    apiVersion: env.apiVersion,
    kind: env.kind,
    ...decodeMessage(name, env.raw, decodeObject),
  };
}

/**
 * Encodes a JSON object that has `apiVersion` and `kind` as an enveloped Protobuf object, written
 * as Go writes it (an empty `contentEncoding` and `contentType` included). Throws a
 * `ProtobufError`: `UnknownKind` for a kind without Protobuf, `InvalidValue` for a value that does
 * not fit its field.
 */
export function encodeObject(obj: Record<string, unknown>): Uint8Array<ArrayBuffer> {
  const { apiVersion, kind } = obj;
  if (typeof apiVersion !== "string" || typeof kind !== "string") {
    throw new ProtobufError("InvalidValue", "object has no apiVersion and kind");
  }
  const name = protobufMessageName(apiVersion, kind);
  if (!name) {
    throw new ProtobufError(
      "UnknownKind",
      `no protobuf encoding for kind ${JSON.stringify(kind)} in version ${
        JSON.stringify(apiVersion)
      }`,
    );
  }
  const w = new ProtoWriter();
  w.raw(PROTOBUF_MAGIC);
  w.tag(1, WIRE_LEN).fork();
  w.tag(1, WIRE_LEN).string(apiVersion).tag(2, WIRE_LEN).string(kind);
  w.ldelim();
  w.tag(2, WIRE_LEN).fork();
  writeMessage(w, name, obj, encodeObject);
  w.ldelim();
  w.tag(3, WIRE_LEN).string("").tag(4, WIRE_LEN).string("");
  return w.finish();
}
