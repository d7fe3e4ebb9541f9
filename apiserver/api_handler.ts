/**
 * The API server's request handler, composed of named filters in the order a request meets
 * them: request info (audit ID) → request log (metrics, `-v=2` log line) → Status errors →
 * failed-authentication audit → authentication (401) → audit → impersonation → authorization
 * (403) → health and metrics paths → compression → the routes (version, resources through one
 * handler per verb, discovery, OpenAPI; else 404).
 *
 * It is a plain `(Request, connection) => Response` function: the HTTPS listener serves it,
 * and tests call it in-process.
 *
 * @module
 */
import { StatusError } from "../shared/errors/status_error.ts";
import type { FeatureGates } from "../shared/feature_gates.ts";
import type { Logger } from "../shared/log/mod.ts";
import type { Authenticator } from "./auth/authn/authenticator.ts";
import type { Authorizer } from "./auth/authz/authorizer.ts";
import type { Auditor } from "./audit/auditor.ts";
import type { HealthChecks } from "./health/mod.ts";
import { Discovery } from "./http/discovery.ts";
import { type ApiHandler, chainFilters, type ContextHandler } from "./http/filters/filter.ts";
import { withAudit, withFailedAuthenticationAudit } from "./http/filters/with_audit.ts";
import { withAuthentication } from "./http/filters/with_authentication.ts";
import { withAuthorization } from "./http/filters/with_authorization.ts";
import { withCompression } from "./http/filters/with_compression.ts";
import { withHealthAndMetrics } from "./http/filters/with_health_and_metrics.ts";
import { withImpersonation } from "./http/filters/with_impersonation.ts";
import { withRequestInfo } from "./http/filters/with_request_info.ts";
import { withRequestLog } from "./http/filters/with_request_log.ts";
import { withStatusErrors } from "./http/filters/with_status_errors.ts";
import type { PatchAppliers } from "./http/patch_applier.ts";
import type { YamlDecoder } from "./http/yaml_decoder.ts";
import { ResourceHandler } from "./http/resource_handler.ts";
import { verbHandlers } from "./http/verb_handlers.ts";
import { handleVersion } from "./http/version.ts";
import { type ApiServerMetrics, metricsHandler } from "./metrics/mod.ts";
import { OpenApiV3Handler } from "./openapi/openapi_handler.ts";
import { OpenApiV2Handler } from "./openapi/openapi_v2_handler.ts";
import type { ResourceRegistry } from "./registry/resource_registry.ts";
import type { AggregatorProxy } from "./aggregator/proxy_handler.ts";
import type { AggregatedGroups } from "./http/discovery.ts";
import type { WatchCaches } from "./watch/watch_caches.ts";
import type { ConnectHandler } from "./http/pod_connect.ts";

export type { ApiHandler } from "./http/filters/filter.ts";

/** What the handler is built from. */
export interface ApiHandlerDeps {
  /** The served kinds. */
  registry: ResourceRegistry;
  /** The watch caches of the registry's stores (watches are served from them). */
  watchCaches: WatchCaches;
  /** The patch types PATCH applies. */
  patchAppliers: PatchAppliers;
  /** Parses large YAML bodies off the request thread. */
  yamlDecoder?: YamlDecoder;
  authenticator: Authenticator;
  /** Authorizes requests and impersonation. */
  authorizer: Authorizer;
  health: HealthChecks;
  metrics: ApiServerMetrics;
  /** APIResponseCompression and WatchList are read from them per request. */
  featureGates: FeatureGates;
  logger: Logger;
  /** Proxies the group versions of remote APIServices to their extension API servers. */
  aggregator?: AggregatorProxy;
  /** Remote group versions and discovery's order (the aggregator's). */
  aggregatedGroups?: AggregatedGroups;
  /** The OpenAPI v3 documents of remote group versions, by path (`apis/<group>/<version>`). */
  remoteOpenApi?: () => ReadonlyMap<string, { body: Uint8Array<ArrayBuffer>; hash: string }>;
  /** The OpenAPI v2 documents of remote APIServices (by priority) and their generation. */
  remoteOpenApiV2?: () => { generation: number; docs: readonly Record<string, unknown>[] };
  /** Records audit events (`--audit-policy-file`); absent, nothing is audited. */
  auditor?: Auditor;
  /** Serves pods/log, exec, attach and portforward (proxied to node agents). */
  connect?: ConnectHandler;
}

/** Builds the handler: the filters, outermost first, in front of the routes. */
export function buildApiHandler(deps: ApiHandlerDeps): ApiHandler {
  const { authorizer, featureGates, logger, metrics } = deps;
  return withRequestInfo(chainFilters([
    withRequestLog(metrics, logger),
    withStatusErrors(logger),
    withFailedAuthenticationAudit(deps.auditor),
    withAuthentication(deps.authenticator, metrics, logger),
    withAudit(deps.auditor),
    withImpersonation(authorizer),
    withAuthorization(authorizer),
    withHealthAndMetrics(
      deps.health,
      metricsHandler(metrics.registry),
      metricsHandler(metrics.sli.registry),
    ),
    withCompression(() => featureGates.enabled("APIResponseCompression")),
  ], apiRoutes(deps)));
}

/** The routes behind the filters: version, resources, discovery and OpenAPI; else 404. */
function apiRoutes(deps: ApiHandlerDeps): ContextHandler {
  const { registry, featureGates } = deps;
  const resources = new ResourceHandler({
    registry,
    verbs: verbHandlers(deps.watchCaches),
    watchListEnabled: () => featureGates.enabled("WatchList"),
    patchAppliers: deps.patchAppliers,
    yamlDecoder: deps.yamlDecoder,
    connect: deps.connect,
  });
  const servedVerbs = () => resources.servedVerbs();
  const discovery = new Discovery(registry, servedVerbs, deps.aggregatedGroups);
  const openapi = new OpenApiV3Handler(
    () => registry.served().map((s) => s.def),
    servedVerbs,
    undefined,
    deps.remoteOpenApi,
  );
  registry.onChange(() => openapi.invalidate());
  const openapiV2 = new OpenApiV2Handler({
    kinds: () => registry.served().map((s) => s.def),
    served: servedVerbs,
    compress: () => featureGates.enabled("APIResponseCompression"),
    remote: deps.remoteOpenApiV2,
  });
  registry.onChange(() => openapiV2.invalidate());
  return async (ctx) => {
    const { req, conn, url, info, user, warnings } = ctx;
    if (url.pathname === "/version" || url.pathname === "/version/") return handleVersion();
    const proxied = await deps.aggregator?.handle({
      req,
      url,
      user,
      signal: conn.signal,
      clientIp: conn.remoteAddr.hostname,
    });
    if (proxied) return proxied;
    if (info.isResourceRequest) {
      return await resources.handle(req, conn, url, info, user, warnings, ctx);
    }
    const disc = await discovery.handle(req, url);
    if (disc) return disc;
    const oa = await openapi.handle(req, url);
    if (oa) return oa;
    const oa2 = await openapiV2.handle(req, url);
    if (oa2) return oa2;
    throw StatusError.pathNotFound();
  };
}
