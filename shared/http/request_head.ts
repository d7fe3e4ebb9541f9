/**
 * Parsing of an HTTP/1.x request head (RFC 9112 sections 2 to 6): the request line, the header
 * fields, and the body framing they declare. Strict where leniency has led to request
 * smuggling: no whitespace before a field's colon, no obsolete line folding, one agreed
 * Content-Length, and never both Content-Length and Transfer-Encoding.
 *
 * @module
 */

/** A request head as received. */
export interface RequestHead {
  method: string;
  /** The request target as sent (origin form `/path?query`, absolute form, or `*`). */
  target: string;
  /** 0 for HTTP/1.0, 1 for HTTP/1.1. */
  minorVersion: 0 | 1;
  /** Field names and values as sent, alternating: `[name, value, name, value, …]`. */
  rawHeaders: string[];
  /** The Host field's value ("" when absent). */
  host: string;
  /** How the body is framed. */
  body: { kind: "none" } | { kind: "length"; length: number } | { kind: "chunked" };
  /** Whether the connection stays open after the response (Connection and the version). */
  keepAlive: boolean;
  /** The client sent `Expect: 100-continue`. */
  expectContinue: boolean;
}

/** A head that cannot be accepted; `status` is the answer to send before closing. */
export class HttpParseError extends Error {
  constructor(readonly status: 400 | 431 | 501 | 505, message: string) {
    super(message);
    this.name = "HttpParseError";
  }
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Visible ASCII only: a request target never holds spaces or control characters. */
export const TARGET = /^[\x21-\x7e]+$/;
/** A field value may hold HTAB, visible characters and obs-text, but no other control. */
// deno-lint-ignore no-control-regex
export const BAD_VALUE = /[\x00-\x08\x0a-\x1f\x7f]/;
/** A Content-Length value. */
export const DIGITS = /^[0-9]+$/;

/**
 * Parses the head in `text` (latin1-decoded bytes up to, not including, the blank line that
 * ends it; leading empty lines are ignored). Throws {@link HttpParseError}.
 */
export function parseRequestHead(text: string): RequestHead {
  let start = 0;
  while (text.startsWith("\r\n", start)) start += 2;
  const lineEnd = text.indexOf("\r\n", start);
  const requestLine = text.slice(start, lineEnd < 0 ? text.length : lineEnd);
  const sp1 = requestLine.indexOf(" ");
  const sp2 = requestLine.indexOf(" ", sp1 + 1);
  if (sp1 <= 0 || sp2 <= sp1 + 1 || requestLine.indexOf(" ", sp2 + 1) >= 0) {
    throw new HttpParseError(400, "malformed request line");
  }
  const method = requestLine.slice(0, sp1);
  const target = requestLine.slice(sp1 + 1, sp2);
  const version = requestLine.slice(sp2 + 1);
  if (!TOKEN.test(method)) throw new HttpParseError(400, "malformed method");
  if (!TARGET.test(target)) throw new HttpParseError(400, "malformed request target");
  const minorVersion = minorVersionOf(version);

  const rawHeaders: string[] = [];
  let host: string | undefined;
  let contentLength: string | undefined;
  let transferEncoding: string | undefined;
  let connection = "";
  let expectContinue = false;
  let pos = lineEnd < 0 ? text.length : lineEnd + 2;
  while (pos < text.length) {
    let end = text.indexOf("\r\n", pos);
    if (end < 0) end = text.length;
    const line = text.slice(pos, end);
    pos = end + 2;
    if (line === "") continue;
    const colon = colonOf(line);
    const name = line.slice(0, colon);
    if (!TOKEN.test(name)) throw new HttpParseError(400, "malformed header field name");
    const value = trimOws(line.slice(colon + 1));
    if (BAD_VALUE.test(value)) throw new HttpParseError(400, "malformed header field value");
    rawHeaders.push(name, value);
    switch (name.length) {
      case 4:
        if (name.toLowerCase() === "host") {
          if (host !== undefined) throw new HttpParseError(400, "more than one Host field");
          host = value;
        }
        break;
      case 6:
        if (name.toLowerCase() === "expect" && value.toLowerCase() === "100-continue") {
          expectContinue = true;
        }
        break;
      case 10:
        if (name.toLowerCase() === "connection") {
          connection += (connection ? "," : "") + value.toLowerCase();
        }
        break;
      case 14:
        if (name.toLowerCase() === "content-length") {
          contentLength = agreedContentLength(value, contentLength);
        }
        break;
      case 17:
        if (name.toLowerCase() === "transfer-encoding") {
          transferEncoding = (transferEncoding ? transferEncoding + "," : "") + value;
        }
        break;
    }
  }

  const body = bodyFraming(transferEncoding, contentLength, minorVersion);
  const keepAlive = keepAliveOf(connection, minorVersion);
  return {
    method,
    target,
    minorVersion,
    rawHeaders,
    host: host ?? "",
    body,
    keepAlive,
    expectContinue: expectContinue && body.kind !== "none",
  };
}

/** Where the colon after a field line's name is; rejects obsolete line folding. */
function colonOf(line: string): number {
  const c0 = line.charCodeAt(0);
  if (c0 === 0x20 || c0 === 0x09) throw new HttpParseError(400, "obsolete line folding");
  const colon = line.indexOf(":");
  if (colon <= 0) throw new HttpParseError(400, "malformed header field");
  return colon;
}

/** The minor version of an `HTTP/1.x` version string; 505 for other versions, 400 if malformed. */
function minorVersionOf(version: string): 0 | 1 {
  if (version === "HTTP/1.1") return 1;
  if (version === "HTTP/1.0") return 0;
  if (/^HTTP\/[0-9]\.[0-9]$/.test(version)) {
    throw new HttpParseError(505, `HTTP version ${version.slice(5)} is not supported`);
  }
  throw new HttpParseError(400, "malformed HTTP version");
}

/**
 * The Content-Length after one more field `value` (a list of lengths); repeated fields or a
 * list must all agree with `previous` and each other (RFC 9110 section 8.6).
 */
function agreedContentLength(value: string, previous: string | undefined): string | undefined {
  let contentLength = previous;
  for (const part of value.split(",")) {
    const v = trimOws(part);
    if (!DIGITS.test(v)) throw new HttpParseError(400, "malformed Content-Length");
    if (contentLength !== undefined && contentLength !== v) {
      throw new HttpParseError(400, "conflicting Content-Length fields");
    }
    contentLength = v;
  }
  return contentLength;
}

/** The body framing declared by the Transfer-Encoding and Content-Length fields (combined). */
function bodyFraming(
  transferEncoding: string | undefined,
  contentLength: string | undefined,
  minorVersion: 0 | 1,
): RequestHead["body"] {
  if (transferEncoding !== undefined) {
    if (contentLength !== undefined) {
      throw new HttpParseError(400, "both Content-Length and Transfer-Encoding");
    }
    const codings = transferEncoding.split(",").map((c) => trimOws(c).toLowerCase())
      .filter((c) => c !== "");
    if (minorVersion === 0) throw new HttpParseError(400, "Transfer-Encoding in HTTP/1.0");
    if (codings.length !== 1 || codings[0] !== "chunked") {
      throw new HttpParseError(
        501,
        `unsupported transfer coding ${JSON.stringify(transferEncoding)}`,
      );
    }
    return { kind: "chunked" };
  }
  if (contentLength !== undefined) {
    const length = Number(contentLength);
    if (!Number.isSafeInteger(length)) throw new HttpParseError(400, "Content-Length too large");
    if (length > 0) return { kind: "length", length };
  }
  return { kind: "none" };
}

/** Whether the connection stays open, from the Connection tokens (lowercased) and the version. */
function keepAliveOf(connection: string, minorVersion: 0 | 1): boolean {
  const tokens = connection.split(",").map((t) => t.trim());
  return minorVersion === 1
    ? !tokens.includes("close")
    : tokens.includes("keep-alive") && !tokens.includes("close");
}

function trimOws(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && (s.charCodeAt(a) === 0x20 || s.charCodeAt(a) === 0x09)) a++;
  while (b > a && (s.charCodeAt(b - 1) === 0x20 || s.charCodeAt(b - 1) === 0x09)) b--;
  return a === 0 && b === s.length ? s : s.slice(a, b);
}
