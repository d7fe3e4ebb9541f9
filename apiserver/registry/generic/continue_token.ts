/**
 * Continue tokens in Kubernetes' format (k8s.io/apiserver/pkg/storage/continue.go): base64url
 * without padding of `{"v":"meta.k8s.io/v1","rv":<revision>,"start":"<next key minus the
 * resource prefix>"}`, JSON written as Go writes it. `rv = -1` is the form handed out after
 * compaction: continue from that key at the latest revision.
 *
 * @module
 */
import { StatusError } from "../../../shared/errors/status_error.ts";
import { goQuote } from "../../../shared/api/validation/go_quote.ts";

/** The only token version. */
export const CONTINUE_TOKEN_VERSION = "meta.k8s.io/v1";

/** Why a token was rejected, as Kubernetes' typed decode errors. */
export type ContinueTokenErrorKind =
  | "invalidStartRV"
  | "emptyStartKey"
  | "genericInvalidKey"
  | "unrecognizedEncodedVersion";

/** An unusable continue token; a 400 BadRequest `invalid continue token: <reason>`. */
export class ContinueTokenError extends StatusError {
  /** Which check failed. */
  readonly kind: ContinueTokenErrorKind;
  /** The decode error alone, without the `invalid continue token: ` prefix. */
  readonly detail: string;

  constructor(kind: ContinueTokenErrorKind, detail: string) {
    super({ code: 400, reason: "BadRequest", message: `invalid continue token: ${detail}` });
    this.name = "ContinueTokenError";
    this.kind = kind;
    this.detail = detail;
  }
}

/** A decoded token. */
export interface ContinueToken {
  /** Revision of the first page; negative means "latest". Never 0. */
  rv: number;
  /** The key to start at, relative to the resource prefix (already path-checked). */
  startKeySuffix: string;
}

const B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

const DECODE = new Map<number, number>([...B64URL].map((c, i) => [c.charCodeAt(0), i]));

/**
 * Decodes as Go's `base64.RawURLEncoding.DecodeString`: CR and LF are skipped, a dangling
 * single character or any other character fails with `illegal base64 data at input byte N`.
 */
function base64UrlDecode(src: Uint8Array): Uint8Array {
  const out: number[] = [];
  let si = 0;
  while (si < src.length) {
    const quantum: number[] = [];
    while (quantum.length < 4) {
      if (si === src.length) {
        if (quantum.length === 1) throw new Error(`illegal base64 data at input byte ${si - 1}`);
        break;
      }
      const c = src[si++];
      const v = DECODE.get(c);
      if (v !== undefined) quantum.push(v);
      else if (c !== 0x0a && c !== 0x0d) {
        throw new Error(`illegal base64 data at input byte ${si - 1}`);
      }
    }
    if (quantum.length === 0) break;
    const [a, b, c = 0, d = 0] = quantum;
    const n = (a << 18) | (b << 12) | (c << 6) | d;
    out.push((n >> 16) & 0xff);
    if (quantum.length > 2) out.push((n >> 8) & 0xff);
    if (quantum.length > 3) out.push(n & 0xff);
  }
  return new Uint8Array(out);
}

/** Writes a string as Go's encoding/json does (HTML-safe escapes, `\u2028`, `\u2029`). */
function goJsonString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        out += ch + s[i + 1];
        i++;
        continue;
      }
    }
    if (c >= 0xd800 && c <= 0xdfff) out += "\\ufffd";
    else if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\b") out += "\\b";
    else if (ch === "\f") out += "\\f";
    else if (c < 0x20 || ch === "<" || ch === ">" || ch === "&" || c === 0x2028 || c === 0x2029) {
      out += "\\u" + c.toString(16).padStart(4, "0");
    } else out += ch;
  }
  return out + '"';
}

/**
 * Encodes a token for the page that ends before `startKeySuffix` (the next key relative to the
 * resource prefix, i.e. the last returned key + "\u0000"), pinned to revision `rv` (-1 for
 * "latest", used after compaction).
 */
export function encodeContinue(rv: number, startKeySuffix: string): string {
  const json = `{"v":${goJsonString(CONTINUE_TOKEN_VERSION)},"rv":${Math.trunc(rv)},"start":${
    goJsonString(startKeySuffix)
  }}`;
  return new TextEncoder().encode(json).toBase64({ alphabet: "base64url", omitPadding: true });
}

/** The start key of the page after the one that ended at `lastKeySuffix`. */
export function nextStartKey(lastKeySuffix: string): string {
  return lastKeySuffix + "\u0000";
}

interface RawFields {
  v?: unknown;
  rv?: unknown;
  rvSource?: string;
  start?: unknown;
}

function jsonTypeName(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "object") return "object";
  return typeof v;
}

function goCharQuote(c: string): string {
  if (c === "'") return "'\\''";
  if (c === '"') return "'\"'";
  const q = goQuote(c);
  return `'${q.slice(1, -1)}'`;
}

function parseTokenJson(text: string): RawFields {
  const trimmed = text.replace(/^[ \t\r\n]+/, "");
  if (trimmed.length === 0) throw new Error("unexpected end of JSON input");
  const first = trimmed[0];
  if (!/[{["tfn0-9-]/.test(first)) {
    throw new Error(`invalid character ${goCharQuote(first)} looking for beginning of value`);
  }
  const sources = new Map<string, string>();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text, function (this: unknown, key, value, ctx?: { source?: string }) {
      if (this !== null && typeof this === "object" && !Array.isArray(this) && ctx?.source) {
        sources.set(key, ctx.source);
      }
      return value;
    });
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    throw new Error(
      /end of JSON input|Unterminated/.test(msg) ? "unexpected end of JSON input" : msg,
    );
  }
  if (parsed === null) return {};
  if (typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new Error(
      `json: cannot unmarshal ${jsonTypeName(parsed)} into Go value of type storage.continueToken`,
    );
  }
  // Go matches object keys to struct fields case-insensitively; the last match wins.
  const raw: RawFields = {};
  for (const [k, v] of Object.entries(parsed as Record<string, unknown>)) {
    const lk = k.toLowerCase();
    if (lk === "v") raw.v = v;
    else if (lk === "rv") {
      raw.rv = v;
      raw.rvSource = sources.get(k);
    } else if (lk === "start") raw.start = v;
  }
  return raw;
}

function fieldTypeError(field: string, v: unknown, goType: string): Error {
  const what = typeof v === "number" ? `number ${v}` : jsonTypeName(v);
  return new Error(
    `json: cannot unmarshal ${what} into Go struct field continueToken.${field} of type ${goType}`,
  );
}

/**
 * Decodes and checks a token as Kubernetes' `DecodeContinue`: the version must be
 * `meta.k8s.io/v1`, `rv` must not be 0, `start` must be non-empty and must not climb out of
 * the resource prefix (a leading `/` is added and path cleaning must not change it). Throws
 * {@link ContinueTokenError} (400).
 */
export function decodeContinue(token: string): ContinueToken {
  let raw: RawFields;
  try {
    const bytes = base64UrlDecode(new TextEncoder().encode(token));
    const text = new TextDecoder().decode(bytes);
    raw = parseTokenJson(text);
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    throw new ContinueTokenError("genericInvalidKey", `continue key is not valid: ${msg}`);
  }
  const generic = (msg: string) =>
    new ContinueTokenError("genericInvalidKey", `continue key is not valid: ${msg}`);
  let version = "";
  if (raw.v !== undefined && raw.v !== null) {
    if (typeof raw.v !== "string") throw generic(fieldTypeError("v", raw.v, "string").message);
    version = raw.v;
  }
  let rv = 0;
  if (raw.rv !== undefined && raw.rv !== null) {
    const src = raw.rvSource ?? String(raw.rv);
    if (typeof raw.rv !== "number") throw generic(fieldTypeError("rv", raw.rv, "int64").message);
    if (!/^-?(0|[1-9][0-9]*)$/.test(src)) {
      throw generic(
        `json: cannot unmarshal number ${src} into Go struct field continueToken.rv of type int64`,
      );
    }
    const big = BigInt(src);
    if (big > 9223372036854775807n || big < -9223372036854775808n) {
      throw generic(
        `json: cannot unmarshal number ${src} into Go struct field continueToken.rv of type int64`,
      );
    }
    rv = Number(big);
  }
  let start = "";
  if (raw.start !== undefined && raw.start !== null) {
    if (typeof raw.start !== "string") {
      throw generic(fieldTypeError("start", raw.start, "string").message);
    }
    start = raw.start;
  }
  if (version !== CONTINUE_TOKEN_VERSION) {
    throw new ContinueTokenError(
      "unrecognizedEncodedVersion",
      `continue key is not valid: server does not recognize this encoded version ${version}`,
    );
  }
  if (rv === 0) {
    throw new ContinueTokenError(
      "invalidStartRV",
      "continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)",
    );
  }
  if (start.length === 0) {
    throw new ContinueTokenError(
      "emptyStartKey",
      "continue key is not valid: encoded start key empty (version meta.k8s.io/v1)",
    );
  }
  const key = start.startsWith("/") ? start : "/" + start;
  if (cleanPath(key) !== key) throw generic(start);
  return { rv, startKeySuffix: key.slice(1) };
}

/** Go's `path.Clean` for a rooted path. */
function cleanPath(p: string): string {
  const out: string[] = [];
  for (const seg of p.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") out.pop();
    else out.push(seg);
  }
  return "/" + out.join("/");
}

/** The 410 answered when a continue token's revision was compacted away (no new token). */
export const CONTINUE_EXPIRED_MESSAGE = "The provided continue parameter is too old " +
  "to display a consistent list result. You can start a new list without " +
  "the continue parameter.";

/** The 410 message that comes with a fresh `rv = -1` token. */
export const INCONSISTENT_CONTINUE_MESSAGE = "The provided continue parameter is too old " +
  "to display a consistent list result. You can start a new list without " +
  "the continue parameter, or use the continue token in this response to " +
  "retrieve the remainder of the results. Continuing with the provided " +
  "token results in an inconsistent list - objects that were created, " +
  "modified, or deleted between the time the first chunk was returned " +
  "and now may show up in the list.";

/** The 410 message of a non-paged list at a compacted revision. */
export const LIST_EXPIRED_MESSAGE = "The resourceVersion for the provided list is too old.";

/**
 * The 410 Expired for a continued list whose revision is compacted: carries a new token that
 * continues from the same key at the latest revision (`rv = -1`) in `metadata.continue`.
 */
export function continueExpiredError(startKeySuffix: string): StatusError {
  return StatusError.expired(INCONSISTENT_CONTINUE_MESSAGE, encodeContinue(-1, startKeySuffix));
}
