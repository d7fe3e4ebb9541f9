/**
 * The zlib dictionary that SPDY/3 header blocks are compressed with (SPDY Protocol draft 3,
 * section 2.6.10.1): length-prefixed header names and values, then common value fragments.
 *
 * @module
 */

const PREFIXED = [
  "options",
  "head",
  "post",
  "put",
  "delete",
  "trace",
  "accept",
  "accept-charset",
  "accept-encoding",
  "accept-language",
  "accept-ranges",
  "age",
  "allow",
  "authorization",
  "cache-control",
  "connection",
  "content-base",
  "content-encoding",
  "content-language",
  "content-length",
  "content-location",
  "content-md5",
  "content-range",
  "content-type",
  "date",
  "etag",
  "expect",
  "expires",
  "from",
  "host",
  "if-match",
  "if-modified-since",
  "if-none-match",
  "if-range",
  "if-unmodified-since",
  "last-modified",
  "location",
  "max-forwards",
  "pragma",
  "proxy-authenticate",
  "proxy-authorization",
  "range",
  "referer",
  "retry-after",
  "server",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "user-agent",
  "vary",
  "via",
  "warning",
  "www-authenticate",
  "method",
  "get",
  "status",
  "200 OK",
  "version",
  "HTTP/1.1",
  "url",
  "public",
  "set-cookie",
  "keep-alive",
  "origin",
];

const TAIL = "100101201202205206300302303304305306307402405406407408409410411412413414415416417" +
  "502504505203 Non-Authoritative Information204 No Content301 Moved Permanently" +
  "400 Bad Request401 Unauthorized403 Forbidden404 Not Found500 Internal Server Error" +
  "501 Not Implemented503 Service UnavailableJan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec" +
  " 00:00:00 Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMTchunked,text/html,image/png,image/jpg," +
  "image/gif,application/xml,application/xhtml+xml,text/plain,text/javascript," +
  "publicprivatemax-age=gzip,deflate,sdchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0.";

/** Builds the dictionary (1423 bytes). */
export function spdyDictionary(): Uint8Array {
  const parts: number[] = [];
  for (const s of PREFIXED) {
    parts.push(0, 0, 0, s.length);
    for (let i = 0; i < s.length; i++) parts.push(s.charCodeAt(i));
  }
  for (let i = 0; i < TAIL.length; i++) parts.push(TAIL.charCodeAt(i));
  return new Uint8Array(parts);
}
