/**
 * The filter chain's parts: the context a request carries through the filters, the handler
 * behind a filter, a filter, and their composition.
 *
 * @module
 */
import type { ConnInfo } from "../../../shared/http/https_server.ts";
import type { UserInfo } from "../../../shared/api/authentication/v1/user_info.ts";
import type { RequestInfo } from "../request_info.ts";

/** The API server's handler: a request and its connection in, a response out. */
export type ApiHandler = (req: Request, conn: ConnInfo) => Promise<Response>;

/** A request on its way through the filters, and what they learned of it. */
export interface RequestContext {
  req: Request;
  /** The request's client and connection, from the listener (certificates, abort signal, the
   * body read ahead, the header names as received). */
  conn: ConnInfo;
  url: URL;
  /** What the request addresses. */
  info: RequestInfo;
  /** Who asks: set by authentication, replaced by impersonation. */
  user?: UserInfo;
  /** Warning header values (already formatted) to send with the response. */
  warnings: string[];
  /** `performance.now()` when the request arrived. */
  started: number;
  /** The request's audit ID (its `Audit-ID` header, else a new UUID), sent back as `Audit-Id`. */
  auditID: string;
  /** Set while the request is audited: annotations for its audit event (authorization
   * decision, admission, deprecation). */
  auditAnnotations?: Record<string, string>;
  /** Set when the request addressed a deprecated version (for the deprecated-API metric). */
  deprecated?: { removedRelease?: string };
}

/** Serves a request that passed the filters before it. */
export type ContextHandler = (ctx: RequestContext) => Promise<Response>;

/** One step of the chain: wraps the handler behind it. */
export type Filter = (next: ContextHandler) => ContextHandler;

/** Puts `filters` in front of `handler`, the first one outermost. */
export function chainFilters(filters: readonly Filter[], handler: ContextHandler): ContextHandler {
  return filters.reduceRight((next, filter) => filter(next), handler);
}
