/**
 * The request head of an HTTP/2 request stream from its decoded header list (RFC 9113 section
 * 8.3), the answer to a header list that was too large, and the response fields HTTP/2 carries.
 *
 * @module
 */
import { Http2Error, StreamError } from "./http2_frame.ts";
import { BAD_VALUE, DIGITS, type RequestHead, TARGET } from "./request_head.ts";

/** The head of a request whose header list was too large; it is answered 431 at once. */
export const TOO_LARGE_HEAD: RequestHead = {
  method: "GET",
  target: "/",
  minorVersion: 1,
  rawHeaders: [],
  host: "",
  body: { kind: "none" },
  keepAlive: true,
  expectContinue: false,
};

/** The body of the 431 answer to a request whose header list was too large. */
export const TOO_LARGE_BODY = JSON.stringify({
  kind: "Status",
  apiVersion: "v1",
  metadata: {},
  status: "Failure",
  message: "request header fields too large",
  reason: "RequestHeaderFieldsTooLarge",
  code: 431,
});

/** A lower-case field name (RFC 9113 section 8.2.1: upper case makes a request malformed). */
const LOWER_TOKEN = /^[!#$%&'*+\-.^_`|~0-9a-z]+$/;
/** Fields that are specific to HTTP/1 connections and make an HTTP/2 request malformed. */
const CONNECTION_SPECIFIC = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "upgrade",
]);

function malformed(message: string): StreamError {
  return new StreamError(Http2Error.PROTOCOL_ERROR, `malformed request: ${message}`);
}

/**
 * The request head of a decoded header list (RFC 9113 section 8.3.1); throws a
 * {@link StreamError} for a malformed request.
 */
export function requestHeadOf(fields: string[], endStream: boolean): RequestHead {
  let method: string | undefined;
  let scheme: string | undefined;
  let path: string | undefined;
  let authority: string | undefined;
  let contentLength: string | undefined;
  let host: string | undefined;
  let regular = false;
  const rawHeaders: string[] = [];
  let cookie: string | undefined;
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const name = fields[i];
    const value = fields[i + 1];
    if (name.startsWith(":")) {
      if (regular) throw malformed("pseudo-header field after a regular one");
      switch (name) {
        case ":method":
          if (method !== undefined) throw malformed("repeated :method");
          method = value;
          break;
        case ":scheme":
          if (scheme !== undefined) throw malformed("repeated :scheme");
          scheme = value;
          break;
        case ":path":
          if (path !== undefined) throw malformed("repeated :path");
          path = value;
          break;
        case ":authority":
          if (authority !== undefined) throw malformed("repeated :authority");
          authority = value;
          break;
        default:
          throw malformed(`unknown pseudo-header field ${name}`);
      }
      continue;
    }
    regular = true;
    checkRegularField(name, value);
    switch (name) {
      case "cookie":
        // Cookie crumbs are joined with "; " (RFC 9113 section 8.2.3).
        cookie = cookie === undefined ? value : `${cookie}; ${value}`;
        continue;
      case "content-length":
        if (!DIGITS.test(value) || (contentLength !== undefined && contentLength !== value)) {
          throw malformed("invalid content-length");
        }
        contentLength = value;
        break;
      case "host":
        host ??= value;
        break;
    }
    rawHeaders.push(name, value);
  }
  if (cookie !== undefined) rawHeaders.push("cookie", cookie);
  if (method === undefined || scheme === undefined || path === undefined) {
    throw malformed("missing :method, :scheme or :path");
  }
  checkMethodAndPath(method, path);
  if (authority !== undefined && host === undefined) {
    rawHeaders.push("host", authority);
    host = authority;
  }
  const body = bodyOf(endStream, contentLength);
  return {
    method,
    target: path,
    minorVersion: 1,
    rawHeaders,
    host: host ?? "",
    body,
    keepAlive: true,
    expectContinue: false,
  };
}

/** Checks a regular (not pseudo-header) request field's name and value. */
function checkRegularField(name: string, value: string): void {
  if (!LOWER_TOKEN.test(name)) throw malformed("invalid field name");
  if (BAD_VALUE.test(value)) throw malformed(`invalid value of ${name}`);
  if (CONNECTION_SPECIFIC.has(name)) throw malformed(`connection-specific field ${name}`);
  if (name === "te" && value.trim().toLowerCase() !== "trailers") {
    throw malformed("te other than trailers");
  }
}

/** Checks the :method and :path pseudo-header fields. */
function checkMethodAndPath(method: string, path: string): void {
  if (!LOWER_TOKEN.test(method.toLowerCase())) throw malformed("invalid :method");
  if (method === "CONNECT") throw malformed("CONNECT is not supported");
  if (!TARGET.test(path) || !(path.startsWith("/") || (path === "*" && method === "OPTIONS"))) {
    throw malformed("invalid :path");
  }
}

/**
 * How the body of a stream is framed: none when the headers end the stream, else by its
 * content-length, else until the stream ends (read as chunked).
 */
function bodyOf(endStream: boolean, contentLength: string | undefined): RequestHead["body"] {
  if (endStream) {
    if (contentLength !== undefined && Number(contentLength) > 0) {
      throw malformed("content-length without a body");
    }
    return { kind: "none" };
  }
  if (contentLength !== undefined) {
    const length = Number(contentLength);
    if (!Number.isSafeInteger(length)) throw malformed("invalid content-length");
    return { kind: "length", length };
  }
  return { kind: "chunked" };
}

/** Response fields that HTTP/2 does not carry. */
const DROPPED_RESPONSE_FIELDS = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "upgrade",
  "content-length",
  "date",
]);

/** Appends the fields of `lines` (`name: value\r\n` each) to `out`. */
export function appendFields(lines: string, out: string[]): void {
  let pos = 0;
  while (pos < lines.length) {
    let end = lines.indexOf("\r\n", pos);
    if (end < 0) end = lines.length;
    const colon = lines.indexOf(":", pos);
    if (colon > pos && colon < end) {
      const name = lines.slice(pos, colon).toLowerCase();
      if (!DROPPED_RESPONSE_FIELDS.has(name)) {
        out.push(name, lines.slice(colon + 1, end).trim());
      }
    }
    pos = end + 2;
  }
}
