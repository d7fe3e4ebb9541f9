/** The per-request context handed from the filter chain to the verb handlers. */
import type { ConnInfo } from "../../shared/http/https_server.ts";
import type { UserInfo } from "../../shared/api/authentication/v1/user_info.ts";
import type { Store } from "../registry/generic/store.ts";
import type { OutputFormat } from "./negotiation.ts";
import type { PatchAppliers } from "./patch_applier.ts";
import type { RequestInfo } from "./request_info.ts";
import type { YamlDecoder } from "./yaml_decoder.ts";

/** What every resource handler receives. */
export interface ResourceContext {
  req: Request;
  /** The request's client and connection, from the listener. */
  conn: ConnInfo;
  url: URL;
  info: RequestInfo;
  store: Store;
  /** The negotiated response format. */
  format: OutputFormat;
  user?: UserInfo;
  /** Warning header values (already formatted) to send with the response. */
  warnings: string[];
  /** The request's audit annotations while it is audited (admission and deprecation add). */
  auditAnnotations?: Record<string, string>;
  /** Whether the WatchList feature gate is on. */
  watchListEnabled?: boolean;
  /** The patch types the server applies (PATCH). */
  patchAppliers: PatchAppliers;
  /** Parses large YAML bodies off the request thread; absent, YAML is parsed inline. */
  yamlDecoder?: YamlDecoder;
}
