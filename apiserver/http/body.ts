/**
 * Reads and decodes request bodies (JSON, YAML, Protobuf) into plain objects, with
 * Kubernetes' 4xx answers for everything malformed, and finds duplicated fields, which the
 * decoders would otherwise collapse silently.
 *
 * @module
 */
import { decodeEnvelope, decodeObject, ProtobufError } from "../../shared/codec/protobuf/mod.ts";
import { goJsonSyntaxError } from "../../shared/json/go_json_syntax_error.ts";
import { findJsonDuplicateFields } from "../../shared/api/schema/json_duplicate_fields.ts";
import { StatusError } from "../../shared/errors/status_error.ts";
import { checkBodyDepth, checkJsonTextDepth } from "./body_depth.ts";
import { parseMediaType } from "./negotiation.ts";
import { parseYamlBody } from "./yaml_body.ts";
import type { YamlDecoder } from "./yaml_decoder.ts";

/** The largest body accepted (kube-apiserver's MaxRequestBodyBytes). */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

/** The Protobuf media type. */
export const PROTOBUF = "application/vnd.kubernetes.protobuf";

/** Media types a body may have. */
export const SUPPORTED_INPUT = ["application/json", "application/yaml", PROTOBUF];

/** Media types a body may have for a kind without Protobuf. */
export const SUPPORTED_INPUT_NO_PROTOBUF = ["application/json", "application/yaml"];

/**
 * Reads the raw body, failing with 413 beyond the limit. `buffered` is the whole body when the
 * listener read it ahead (its `ConnInfo.body`; the listener's limit is the same as ours).
 */
export async function readBody(req: Request, buffered?: Uint8Array): Promise<Uint8Array> {
  if (buffered && buffered.byteLength <= MAX_BODY_BYTES) return buffered;
  if (!req.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = req.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => {});
      throw StatusError.requestEntityTooLarge(`limit is ${MAX_BODY_BYTES}`);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let off = 0;
  for (const c of chunks) {
    out.set(c, off);
    off += c.byteLength;
  }
  return out;
}

/** A decoded body. */
export interface DecodedBody {
  value: unknown;
  /** The body's encoding. */
  format: "json" | "yaml" | "protobuf";
  /**
   * Duplicated fields, as strict decoding reports them: `duplicate field "a.b"` (JSON) or
   * `line 3: key "a" already set in map` (YAML). Empty unless asked for.
   */
  duplicates: string[];
}

/** Options of {@link decodeRequestBody}. */
export interface DecodeOptions {
  /** Look for duplicated fields (skipped under fieldValidation=Ignore). */
  findDuplicates?: boolean;
  /** Whether the target kind has a Protobuf encoding (default true); false answers 415. */
  protobuf?: boolean;
  /** Parses YAML off the request thread when large; without it YAML is parsed inline. */
  yaml?: YamlDecoder;
  /**
   * The kind the body must hold (create, update). A body that cannot be decoded then answers
   * as kube-apiserver does: `the object provided is unrecognized (must be of type <kind>): ...`.
   */
  kind?: string;
}

/** A body the declared media type cannot decode, in the words of Go's decoders. */
class Undecodable extends Error {
  /** `typed`: the envelope named its kind, the object inside is broken. */
  constructor(message: string, readonly typed?: { apiVersion: string; kind: string }) {
    super(message);
  }
}

/**
 * kube's summary of a body in decode errors: `<empty>`, `N bytes of binary data`, or the text
 * (the first 30 bytes and ` ...` when longer).
 */
export function summarizeBody(bytes: Uint8Array): string {
  if (bytes.length === 0) return "<empty>";
  if (bytes[0] === 0) return `${bytes.length} bytes of binary data`;
  if (bytes.length > 30) return `${UTF8.decode(bytes.subarray(0, 30))} ...`;
  return UTF8.decode(bytes);
}

function undecodableError(err: Undecodable, bytes: Uint8Array, opts: DecodeOptions): StatusError {
  if (!opts.kind) return StatusError.badRequest(err.message);
  if (err.typed) {
    const version = err.typed.apiVersion.slice(err.typed.apiVersion.indexOf("/") + 1);
    return StatusError.badRequest(
      `${err.typed.kind} in version ${
        JSON.stringify(version)
      } cannot be handled as a ${opts.kind}: ${err.message}`,
    );
  }
  return StatusError.badRequest(
    `the object provided is unrecognized (must be of type ${opts.kind}): ${err.message} (${
      summarizeBody(bytes)
    })`,
  );
}

const UTF8 = new TextDecoder();

/**
 * Decodes a body of the given Content-Type (JSON when absent). A body nested too deep is a 400
 * ({@link checkBodyDepth}).
 */
export async function decodeRequestBody(
  contentType: string | null,
  bytes: Uint8Array,
  opts: DecodeOptions = {},
): Promise<DecodedBody> {
  let decoded: DecodedBody;
  try {
    decoded = await decodeUnchecked(contentType, bytes, opts);
  } catch (err) {
    if (err instanceof Undecodable) throw undecodableError(err, bytes, opts);
    if (
      err instanceof StatusError && err.code === 400 &&
      err.message.startsWith("error converting YAML to JSON: ")
    ) throw undecodableError(new Undecodable(err.message), bytes, opts);
    throw err;
  }
  checkBodyDepth(decoded.value);
  return decoded;
}

async function decodeUnchecked(
  contentType: string | null,
  bytes: Uint8Array,
  opts: DecodeOptions,
): Promise<DecodedBody> {
  const protobufOk = opts.protobuf ?? true;
  // An absent or empty Content-Type means JSON; one that does not parse is 415, as in Kubernetes.
  const mt = (contentType ?? "").trim() === ""
    ? { type: "application", subtype: "json", params: {}, q: 1 }
    : parseMediaType(contentType!);
  if (!mt) {
    throw StatusError.unsupportedMediaType(
      contentType ?? "",
      protobufOk ? SUPPORTED_INPUT : SUPPORTED_INPUT_NO_PROTOBUF,
    );
  }
  if (mt.type === "application" && mt.subtype === "json") {
    const text = UTF8.decode(bytes);
    const value = parseJson(text, bytes);
    const duplicates = opts.findDuplicates
      ? findJsonDuplicateFields(text).map((p) => `duplicate field ${JSON.stringify(p)}`)
      : [];
    return { value, format: "json", duplicates };
  }
  if (mt.type === "application" && (mt.subtype === "yaml" || mt.subtype === "x-yaml")) {
    const text = UTF8.decode(bytes);
    const findDuplicates = !!opts.findDuplicates;
    const yaml = opts.yaml
      ? await opts.yaml.parse(text, findDuplicates)
      : parseYamlBody(text, findDuplicates);
    return { ...yaml, format: "yaml" };
  }
  if (mt.type === "application" && mt.subtype === "vnd.kubernetes.protobuf" && protobufOk) {
    return { value: parseProtobuf(bytes), format: "protobuf", duplicates: [] };
  }
  throw StatusError.unsupportedMediaType(
    contentType ?? "",
    protobufOk ? SUPPORTED_INPUT : SUPPORTED_INPUT_NO_PROTOBUF,
  );
}

/** Decodes a body of the given Content-Type into a JSON value. */
export async function decodeBody(
  contentType: string | null,
  bytes: Uint8Array,
  opts: DecodeOptions = {},
): Promise<unknown> {
  return (await decodeRequestBody(contentType, bytes, opts)).value;
}

function parseJson(text: string, bytes: Uint8Array): unknown {
  checkJsonTextDepth(text);
  try {
    return JSON.parse(text);
  } catch {
    const goMessage = goJsonSyntaxError(bytes) ?? "unexpected end of JSON input";
    throw new Undecodable(`couldn't get version/kind; json parse error: ${goMessage}`);
  }
}

/** Go's gogo-protobuf words for the truncations and overflows our reader reports. */
function goProtobufMessage(message: string): string {
  if (/truncated|past the end/.test(message)) return "unexpected EOF";
  if (/longer than 10 bytes|out of range/.test(message)) return "proto: integer overflow";
  return message;
}

function parseProtobuf(bytes: Uint8Array): unknown {
  if (bytes.length === 0) throw new Undecodable("empty data");
  if (bytes.length === 4 && decodeEnvelopeOrThrow(bytes)) throw new Undecodable("empty body");
  const env = decodeEnvelopeOrThrow(bytes);
  try {
    return decodeObject(bytes);
  } catch (err) {
    if (err instanceof ProtobufError) {
      if (err.reason === "UnknownKind") {
        throw StatusError.unsupportedMediaType(PROTOBUF, SUPPORTED_INPUT_NO_PROTOBUF);
      }
      throw new Undecodable(goProtobufMessage(err.message), env);
    }
    throw err;
  }
}

function decodeEnvelopeOrThrow(bytes: Uint8Array): { apiVersion: string; kind: string } {
  try {
    const env = decodeEnvelope(bytes);
    return { apiVersion: env.apiVersion, kind: env.kind };
  } catch (err) {
    if (err instanceof ProtobufError) throw new Undecodable(goProtobufMessage(err.message));
    throw err;
  }
}
