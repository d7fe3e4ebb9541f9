/**
 * Reads and decodes request bodies (JSON, YAML) into plain objects, with Kubernetes' 4xx
 * answers for everything malformed.
 *
 * @module
 */
import { parseAllDocuments } from "yaml";
import { StatusError } from "../../shared/errors/status_error.ts";
import { parseMediaType } from "./negotiation.ts";

/** The largest body accepted (kube-apiserver's MaxRequestBodyBytes). */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

/** Media types a body may have. */
export const SUPPORTED_INPUT = ["application/json", "application/yaml"];

/** Reads the raw body, failing with 413 beyond the limit. */
export async function readBody(req: Request): Promise<Uint8Array> {
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
      throw new StatusError({
        code: 413,
        reason: "RequestEntityTooLarge",
        message: `Request entity too large: limit is ${MAX_BODY_BYTES}`,
      });
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

/** Decodes a body of the given Content-Type into a JSON value. */
export function decodeBody(contentType: string | null, bytes: Uint8Array): unknown {
  const mt = parseMediaType(contentType ?? "application/json") ??
    { type: "application", subtype: "json", params: {}, q: 1 };
  const text = new TextDecoder("utf-8", { fatal: false }).decode(bytes);
  if (mt.type === "application" && mt.subtype === "json") return parseJson(text);
  if (mt.type === "application" && (mt.subtype === "yaml" || mt.subtype === "x-yaml")) {
    return parseYaml(text);
  }
  throw StatusError.unsupportedMediaType(contentType ?? "", SUPPORTED_INPUT);
}

function parseJson(text: string): unknown {
  if (text.trim() === "") throw StatusError.badRequest("the body of the request is empty");
  try {
    return JSON.parse(text);
  } catch (err) {
    throw StatusError.badRequest(
      `couldn't get version/kind; json parse error: ${(err as Error).message}`,
    );
  }
}

function parseYaml(text: string): unknown {
  const docs = parseAllDocuments(text);
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
  return doc.toJS({ maxAliasCount: 100 });
}
