/**
 * A listener's ConnInfo for in-process handler tests: a loopback client without certificates,
 * nothing read ahead, and the request's header names when given.
 *
 * @module
 */
import type { ConnInfo } from "../../shared/http/https_server.ts";

/** A ConnInfo as the listener would hand it for `req` (or for no request in particular). */
export function testConn(req?: Request, overrides: Partial<ConnInfo> = {}): ConnInfo {
  return {
    remoteAddr: { hostname: "127.0.0.1", port: 0 },
    peerCertificates: [],
    signal: new AbortController().signal,
    body: undefined,
    headerNames: req ? [...req.headers.keys()] : [],
    ...overrides,
  };
}
