/**
 * The first filter: parses what a request addresses (its RequestInfo) and starts the context
 * the other filters share, with the audit ID every response carries in `Audit-Id`.
 *
 * @module
 */
import { parseRequestInfo } from "../request_info.ts";
import type { ApiHandler, ContextHandler } from "./filter.ts";

/** Turns a context handler into the server's handler, parsing each request's info first. */
export function withRequestInfo(next: ContextHandler): ApiHandler {
  return async (req, conn) => {
    const started = performance.now();
    const url = new URL(req.url);
    const info = parseRequestInfo(req.method, url);
    const auditID = req.headers.get("audit-id") || crypto.randomUUID();
    const res = await next({ req, conn, url, info, warnings: [], started, auditID });
    try {
      res.headers.set("Audit-Id", auditID);
    } catch { /* immutable headers (a fetched response): sent without it */ }
    return res;
  };
}
