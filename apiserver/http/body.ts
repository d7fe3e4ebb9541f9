/**
 * Reads and decodes request bodies (JSON, YAML, Protobuf) into plain objects, with
 * Kubernetes' 4xx answers for everything malformed, and finds duplicated fields, which the
 * decoders would otherwise collapse silently.
 *
 * @module
 */
import { isMap, isScalar, isSeq, LineCounter, type Node, parseAllDocuments } from "yaml";
import { decodeObject, ProtobufError } from "../../shared/codec/protobuf/mod.ts";
import { findJsonDuplicateFields } from "../../shared/api/schema/json_duplicate_fields.ts";
import { StatusError } from "../../shared/errors/status_error.ts";
import { checkBodyDepth, checkJsonTextDepth, checkYamlTextDepth } from "./body_depth.ts";
import { parseMediaType } from "./negotiation.ts";

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
}

const UTF8 = new TextDecoder();

/**
 * Decodes a body of the given Content-Type (JSON when absent). A body nested too deep is a 400
 * ({@link checkBodyDepth}).
 */
export function decodeRequestBody(
  contentType: string | null,
  bytes: Uint8Array,
  opts: DecodeOptions = {},
): DecodedBody {
  const decoded = decodeUnchecked(contentType, bytes, opts);
  checkBodyDepth(decoded.value);
  return decoded;
}

function decodeUnchecked(
  contentType: string | null,
  bytes: Uint8Array,
  opts: DecodeOptions,
): DecodedBody {
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
    return parseYaml(new TextDecoder().decode(bytes), !!opts.findDuplicates);
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
export function decodeBody(contentType: string | null, bytes: Uint8Array): unknown {
  return decodeRequestBody(contentType, bytes).value;
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

function parseYaml(text: string, findDuplicates: boolean): DecodedBody {
  checkYamlTextDepth(text);
  const lines = new LineCounter();
  const docs = parseAllDocuments(text, { uniqueKeys: false, lineCounter: lines });
  if (!Array.isArray(docs)) throw StatusError.badRequest("the body of the request is empty");
  const real = docs.filter((d) => d.contents !== null);
  if (real.length !== 1) {
    throw StatusError.badRequest(
      real.length === 0
        ? "the body of the request is empty"
        : "the body of the request must hold exactly one YAML document",
    );
  }
  const doc = real[0];
  if (doc.errors.length > 0) {
    throw StatusError.badRequest(`error converting YAML to JSON: ${doc.errors[0].message}`);
  }
  const duplicates: string[] = [];
  if (findDuplicates) yamlDuplicates(doc.contents, lines, duplicates);
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    throw StatusError.badRequest(`error converting YAML to JSON: ${(err as Error).message}`);
  }
  return { value, format: "yaml", duplicates };
}

function yamlDuplicates(node: unknown, lines: LineCounter, out: string[]): void {
  if (isMap(node)) {
    const seen = new Set<string>();
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      if (seen.has(key)) {
        const offset = (pair.key as Node | null)?.range?.[0] ?? 0;
        out.push(
          `line ${lines.linePos(offset).line}: key ${JSON.stringify(key)} already set in map`,
        );
      } else seen.add(key);
      yamlDuplicates(pair.value, lines, out);
    }
  } else if (isSeq(node)) {
    for (const item of node.items) yamlDuplicates(item, lines, out);
  }
}
