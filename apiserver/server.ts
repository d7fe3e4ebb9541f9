/**
 * The API server: assembles storage, the registry of kinds, admission, authentication,
 * authorization and the HTTP routes, and serves them over HTTPS.
 *
 * A request goes, top to bottom: request info → authentication (401) → authorization (403)
 * → route (health, version, metrics, discovery, resources) → one handler per verb → the
 * generic store → storage. Every error is a StatusError, rendered once at the edge.
 *
 * @module
 */
import { StatusError, toStatusError } from "../shared/errors/status_error.ts";
import { Logger } from "../shared/log/mod.ts";
import { namespaceLifecycle } from "./admission/namespace_lifecycle.ts";
import type { ConnectionInfo } from "./auth/authn/authenticator.ts";
import { buildAuthenticator } from "./auth/authn/build_authenticator.ts";
import { impersonate } from "./auth/impersonation.ts";
import { type AuthzAttributes, forbiddenMessage } from "./auth/authz/authorizer.ts";
import { reconcileDefaultPolicy } from "./auth/authz/bootstrap/reconcile_policy.ts";
import { buildAuthorizer, type BuiltAuthorization } from "./auth/authz/build_authorizer.ts";
import { ChangeFeedResourceFeed } from "./auth/authz/resource_feed.ts";
import { nodeRestriction } from "./admission/node_restriction.ts";
import {
  ClusterRoleAggregationController,
} from "./controllers/clusterrole_aggregation_controller.ts";
import { accessReviewKinds } from "./registry/authorization/access_review_kinds.ts";
import { rbacEscalationCheck } from "./registry/rbac/escalation_admission.ts";
import { GarbageCollector } from "./controllers/garbage_collector.ts";
import { NamespaceController } from "./controllers/namespace_controller.ts";
import { NodeLifecycleController } from "./controllers/node_lifecycle_controller.ts";
import { HealthChecks, storageCheck } from "./health/mod.ts";
import { Discovery } from "./http/discovery.ts";
import { type ConnInfo, type HttpsServer, serveHttps } from "./http/https_server.ts";
import { parseRequestInfo, type RequestInfo } from "./http/request_info.ts";
import { handleResource, registerVerbHandler, servedVerbs } from "./http/resource_handler.ts";
import { handleWatch } from "./http/handlers/watch.ts";
import { ChangeFeed } from "./watch/change_feed.ts";
import { attachWatchCaches } from "./watch/attach_watch_caches.ts";
import { compressResponse, errorResponse } from "./http/respond.ts";
import { errorFormat } from "./http/negotiation.ts";
import { OpenApiV3Handler } from "./openapi/openapi_handler.ts";
import { handleVersion } from "./http/version.ts";
import {
  type ApiServerMetrics,
  createApiServerMetrics,
  metricsHandler,
  MetricsRegistry,
} from "./metrics/mod.ts";
import type { ServerOptions } from "./options.ts";
import { bootstrapPki, type Pki } from "./pki/bootstrap_pki.ts";
import { serverUrlFor, writeAdminKubeconfig } from "./pki/write_admin_kubeconfig.ts";
import { AdmissionChain } from "./registry/generic/admission.ts";
import type { UserInfo } from "../shared/api/authentication/v1/user_info.ts";
import { builtinKinds } from "./registry/builtin_kinds.ts";
import { ResourceRegistry } from "./registry/resource_registry.ts";
import "./fieldmanager/register_patch_types.ts";
import type { Storage } from "./storage/interface.ts";
import { LibsqlStorage } from "./storage/libsql/libsql_storage.ts";

/** A running API server. */
export interface RunningServer {
  /** `https://host:port` clients use. */
  url: string;
  port: number;
  dataDir: string;
  /** `<dataDir>/admin.kubeconfig`. */
  kubeconfigPath: string;
  /** The CA that signed the serving certificate (PEM). */
  caPem: string;
  /** The administrator's bearer token. Secret: never log it. */
  adminToken: string;
  pki: Pki;
  storage: Storage;
  registry: ResourceRegistry;
  /** The watch caches' feed (one cache per stored resource). */
  watchFeed: ChangeFeed;
  /** The authorizer chain and its RBAC index. */
  authorization: BuiltAuthorization;
  /** Resolves once the bootstrap objects exist (readyz passes). */
  ready: Promise<void>;
  /** Stops serving and closes storage. */
  close(): Promise<void>;
}

/** Namespaces that exist from the first start. */
export const SYSTEM_NAMESPACES = ["default", "kube-system", "kube-public", "kube-node-lease"];

/** Starts the API server. */
export async function startServer(
  opts: ServerOptions,
  deps: { logger?: Logger } = {},
): Promise<RunningServer> {
  const logger = deps.logger ?? new Logger({ verbosity: opts.verbosity });
  for (const w of opts.warnings) logger.warn(w);
  await Deno.mkdir(opts.dataDir, { recursive: true, mode: 0o700 });

  const pki = await bootstrapPki({
    dataDir: opts.dataDir,
    sans: opts.tlsSans,
    certFile: opts.tlsCertFile,
    keyFile: opts.tlsPrivateKeyFile,
  });
  const metrics = createApiServerMetrics(new MetricsRegistry({ currentVersion: "1.32" }));
  const storage = await LibsqlStorage.open({
    url: opts.storageUrl ?? `file:${opts.dataDir}/state.db`,
    authToken: opts.storageAuthToken,
    historyWindowMs: opts.historyWindowMs,
    onGroupCommit: (commit) => metrics.observeGroupCommit(commit),
  });

  // Kinds, with admission applied by their stores.
  const admission = new AdmissionChain();
  const registry = new ResourceRegistry({ storage, admission });
  // Authentication reads Secrets and ServiceAccounts through the registry; the TokenRequest and
  // TokenReview kinds need it in turn.
  const authn = await buildAuthenticator(opts.authentication, { pki, registry, logger });
  const kinds = builtinKinds({
    tokenRequests: authn.tokenRequests,
    tokenReviewer: authn.tokenReviewer,
  });
  for (const kind of kinds) registry.add(kind);
  admission.plugins.push(namespaceLifecycle(() => registry.lookup("", "v1", "namespaces")!));
  for (const kind of accessReviewKinds(() => authorization.chain)) registry.add(kind);
  admission.plugins.push(
    nodeRestriction(),
    rbacEscalationCheck({ authorizer: () => authorization.chain, rbac: () => authorization.rbac }),
  );

  // Watch caches: one per stored resource, fed from storage in revision order; they serve
  // watches and the lists Kubernetes serves from its cache.
  registerVerbHandler("watch", handleWatch);
  const watchFeed = new ChangeFeed({
    storage,
    remote: !!opts.storageUrl,
    historyWindowMs: opts.historyWindowMs,
    tuning: opts.watchTuning,
    onError: (message, err) => logger.error(message, { err: String(err) }),
  });
  const detachWatchCaches = attachWatchCaches(watchFeed, registry);
  await watchFeed.start();

  // Authorization: the chain of --authorization-mode; its indexes follow the change feed, so
  // they see every API server's RBAC and pod changes on a shared database.
  const authorization = await buildAuthorizer(opts.authorization, {
    feed: new ChangeFeedResourceFeed(watchFeed),
  }).catch(async (err) => {
    detachWatchCaches();
    await watchFeed.stop();
    authn.close();
    await storage.close();
    throw err;
  });

  // Health, metrics, discovery.
  const health = new HealthChecks({ logger });
  health.addHealthChecks(storageCheck(() => storage.ping()));
  const bootstrapHook = health.addPostStartHook("bootstrap-objects");
  const serveMetrics = metricsHandler(metrics.registry);
  const discovery = new Discovery(registry, servedVerbs);
  const openapi = new OpenApiV3Handler(() => registry.all().map((s) => s.def), servedVerbs);
  registry.onChange(() => openapi.invalidate());

  // Who is asking, and may they.
  const authz = authorization.chain;

  async function authenticate(req: Request, conn: ConnectionInfo): Promise<UserInfo> {
    const started = performance.now();
    const result = await authn.chain.authenticate(req, conn);
    const seconds = (performance.now() - started) / 1000;
    if (result.kind === "user") {
      if (result.method !== "anonymous") metrics.observeAuthentication("success", seconds);
      return result.user;
    }
    metrics.observeAuthentication("failure", seconds);
    if (result.kind === "invalid") {
      logger.v(1).info("authentication failed", { method: result.method, reason: result.reason });
    }
    throw StatusError.unauthorized();
  }

  async function authorize(user: UserInfo, info: RequestInfo): Promise<void> {
    const attrs: AuthzAttributes = {
      user,
      verb: info.isResourceRequest ? info.verb : info.verb.toLowerCase(),
      isResourceRequest: info.isResourceRequest,
      path: info.path,
      apiGroup: info.apiGroup,
      apiVersion: info.apiVersion,
      resource: info.resource,
      subresource: info.subresource,
      namespace: info.namespace,
      name: info.name,
    };
    const d = await authz.authorize(attrs);
    if (d.decision === "allow") return;
    const message = forbiddenMessage(attrs) + (d.reason ? `: ${d.reason}` : "");
    if (!info.isResourceRequest) {
      throw new StatusError({ code: 403, reason: "Forbidden", message, details: {} });
    }
    throw StatusError.forbidden(
      { group: info.apiGroup, resource: info.resource },
      info.name,
      message,
    );
  }

  async function route(
    req: Request,
    url: URL,
    info: RequestInfo,
    user: UserInfo,
    warnings: string[],
    conn: ConnInfo,
  ): Promise<Response> {
    const path = url.pathname;
    const health_ = await health.handleHealth(req);
    if (health_) return health_;
    if (path === "/version" || path === "/version/") return handleVersion();
    if (path === "/metrics") return await serveMetrics(req);
    if (info.isResourceRequest) {
      return await handleResource(req, url, info, registry, user, warnings, {
        conn,
        watchListEnabled: opts.featureGates.enabled("WatchList"),
      });
    }
    const disc = await discovery.handle(req, url);
    if (disc) return disc;
    const oa = await openapi.handle(req, url);
    if (oa) return oa;
    throw StatusError.pathNotFound();
  }

  async function handle(req: Request, conn: ConnInfo): Promise<Response> {
    const started = performance.now();
    const url = new URL(req.url);
    const info = parseRequestInfo(req.method, url);
    const warnings: string[] = [];
    let user: UserInfo | undefined;
    let res: Response;
    try {
      user = await authenticate(req, conn);
      user = await impersonate(req, user, authz, conn.headerNames);
      await authorize(user, info);
      res = await route(req, url, info, user, warnings, conn);
      if (
        info.isResourceRequest && (info.verb === "get" || info.verb === "list") &&
        opts.featureGates.enabled("APIResponseCompression")
      ) {
        res = await compressResponse(req, res);
      }
    } catch (err) {
      const status = toStatusError(err);
      if (status.code >= 500) {
        logger.error("request failed", { path: url.pathname, err: String(err) });
      }
      res = errorResponse(status, errorFormat(req.headers.get("accept")));
    }
    observe(metrics, logger, req, url, info, res, user, started);
    return res;
  }

  const server: HttpsServer = await serveHttps(handle, {
    hostname: opts.bindAddress,
    port: opts.securePort,
    certPem: pki.serving.certPem,
    keyPem: pki.serving.keyPem,
    requestClientCert: true,
    http2: opts.http2MaxStreamsPerConnection > 0,
    http2MaxStreamsPerConnection: opts.http2MaxStreamsPerConnection || undefined,
  });
  const url = serverUrlFor(opts.bindAddress, server.port);
  const kubeconfigPath = `${opts.dataDir}/admin.kubeconfig`;
  await writeAdminKubeconfig(kubeconfigPath, {
    server: url,
    caPem: pki.caPem ?? pki.serving.certPem,
    clientCertPem: pki.adminClient.certPem,
    clientKeyPem: pki.adminClient.keyPem,
  });

  const controller = new NamespaceController({ registry, feed: watchFeed, logger });
  const nodeLifecycle = new NodeLifecycleController({
    registry,
    gracePeriodMs: opts.nodeMonitorGracePeriodMs,
    monitorPeriodMs: Math.min(5_000, Math.max(500, opts.nodeMonitorGracePeriodMs / 4)),
    logger,
  });
  const gc = new GarbageCollector({ registry, feed: watchFeed, logger });
  const aggregation = new ClusterRoleAggregationController({
    index: authorization.index,
    clusterRoles: () => registry.lookup("rbac.authorization.k8s.io", "v1", "clusterroles")!,
    logger,
  });
  const ready = ensureSystemNamespaces(registry).then(async () => {
    await reconcileDefaultPolicy(
      registry.lookup("rbac.authorization.k8s.io", "v1", "clusterroles")!,
      registry.lookup("rbac.authorization.k8s.io", "v1", "clusterrolebindings")!,
    );
    aggregation.start();
    bootstrapHook.done();
    if (opts.runControllers === false) return;
    await controller.start();
    nodeLifecycle.start();
    await gc.start();
  });
  ready.catch((err) => logger.error("bootstrap failed", { err: String(err) }));
  logger.info("serving", { url, dataDir: opts.dataDir });

  return {
    url,
    port: server.port,
    dataDir: opts.dataDir,
    kubeconfigPath,
    caPem: pki.caPem ?? pki.serving.certPem,
    adminToken: pki.adminToken,
    pki,
    storage,
    registry,
    watchFeed,
    authorization,
    ready,
    async close() {
      health.markShuttingDown();
      await ready.catch(() => {});
      await controller.stop();
      await aggregation.stop();
      authorization.stop();
      await gc.stop();
      await nodeLifecycle.stop();
      detachWatchCaches();
      await watchFeed.stop();
      await server.close();
      authn.close();
      await storage.close();
    },
  };
}

/** Creates the system namespaces that are missing. */
async function ensureSystemNamespaces(registry: ResourceRegistry): Promise<void> {
  const namespaces = registry.lookup("", "v1", "namespaces")!;
  for (const name of SYSTEM_NAMESPACES) {
    try {
      await namespaces.create("", { metadata: { name } });
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 409)) throw err;
    }
  }
}

function observe(
  metrics: ApiServerMetrics,
  logger: Logger,
  req: Request,
  url: URL,
  info: RequestInfo,
  res: Response,
  user: UserInfo | undefined,
  started: number,
): void {
  const seconds = (performance.now() - started) / 1000;
  metrics.observeRequest({
    method: req.method,
    scope: !info.isResourceRequest
      ? ""
      : info.name
      ? "resource"
      : info.namespace
      ? "namespace"
      : "cluster",
    group: info.apiGroup,
    version: info.apiVersion,
    resource: info.resource,
    subresource: info.subresource,
    code: res.status,
    durationSeconds: seconds,
    watch: info.verb === "watch",
    contentType: req.headers.get("content-type") ?? undefined,
    dryRun: url.searchParams.getAll("dryRun"),
  });
  const v2 = logger.v(2);
  if (v2.enabled) {
    v2.info("HTTP", {
      verb: info.verb,
      uri: url.pathname + url.search,
      latency: `${(seconds * 1000).toFixed(3)}ms`,
      userAgent: req.headers.get("user-agent") ?? "",
      user: user?.username ?? "",
      resp: res.status,
    });
  }
}
