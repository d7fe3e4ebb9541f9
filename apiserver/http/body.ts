/**
 * Reads and decodes request bodies (JSON, YAML, Protobuf) into plain objects, with
 * Kubernetes' 4xx answers for everything malformed, and finds duplicated fields, which the
 * decoders would otherwise collapse silently.
 *
 * @module
 */
import { decodeObject, ProtobufError } from "../../shared/codec/protobuf/mod.ts";
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
  const decoded = await decodeUnchecked(contentType, bytes, opts);
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
    const value = parseJson(text);
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

function parseJson(text: string): unknown {
  if (text.trim() === "") throw StatusError.badRequest("the body of the request is empty");
  checkJsonTextDepth(text);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw StatusError.badRequest(
      `couldn't get version/kind; json parse error: ${(err as Error).message}`,
    );
  }
}

function parseProtobuf(bytes: Uint8Array): unknown {
  try {
    return decodeObject(bytes);
  } catch (err) {
    if (err instanceof ProtobufError) {
      if (err.reason === "UnknownKind") {
        throw StatusError.unsupportedMediaType(PROTOBUF, SUPPORTED_INPUT_NO_PROTOBUF);
      }
      throw StatusError.badRequest(`error decoding protobuf body: ${err.message}`);
    }
    throw err;
  }
}
