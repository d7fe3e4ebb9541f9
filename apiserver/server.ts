/**
 * The API server's wiring: storage, the registry of kinds with their watch caches, admission,
 * authentication and authorization, the request handler (see api_handler.ts), the HTTPS
 * listener and the controllers, assembled in that order.
 *
 * @module
 */
import { NodeConnections } from "./kubelet/node_connections.ts";
import { nodeConnectionOptions } from "./kubelet/kubelet_client_flags.ts";
import { type ConnectHandler, podConnectHandler } from "./http/pod_connect.ts";
import { type HttpsServer, serveHttps } from "../shared/http/https_server.ts";
import { Logger } from "../shared/log/mod.ts";
import { builtinSchemaModel } from "../shared/api/schema/builtin_model.ts";
import { type ApiHandler, buildApiHandler } from "./api_handler.ts";
import { patchAppliers } from "./http/patch_appliers.ts";
import { YamlDecoder } from "./http/yaml_decoder.ts";
import { RequestsInFlight } from "./http/requests_in_flight.ts";
import { stopServer } from "./graceful_shutdown.ts";
import { type BuiltAuthorization } from "./auth/authz/build_authorizer.ts";
import { HealthChecks, storageCheck } from "./health/mod.ts";
import { postStartHooks } from "./health/post_start_hooks.ts";
import { auditorFor } from "./audit/auditor.ts";
import {
  type ApiServerMetrics,
  createApiServerMetrics,
  MetricsRegistry,
  recordFeatureInfo,
} from "./metrics/mod.ts";
import type { ServerOptions } from "./options.ts";
import { bootstrapPki, type Pki } from "./pki/bootstrap_pki.ts";
import { serverUrlFor, writeAdminKubeconfig } from "./pki/write_admin_kubeconfig.ts";
import { ResourceRegistry } from "./registry/resource_registry.ts";
import type { Storage } from "./storage/interface.ts";
import { LibsqlStorage } from "./storage/libsql/libsql_storage.ts";
import { ChangeFeed } from "./watch/change_feed.ts";
import { type Aggregator, startAggregator } from "./aggregator/aggregator.ts";
import { type RegistryParts, startRegistry } from "./start_registry.ts";
import { startControllers, SYSTEM_NAMESPACES } from "./start_controllers.ts";
import { startResourceMetrics } from "./resourcemetrics/resource_metrics.ts";
import { signingCa } from "./kubelet/signing_ca.ts";
export { SYSTEM_NAMESPACES };

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
  /**
   * Graceful shutdown (SIGTERM): readyz fails at once, requests are served for
   * `--shutdown-delay-duration`, then the listener closes, requests in flight finish, watches
   * end cleanly, and storage closes last.
   */
  shutdown(): Promise<void>;
}

/**
 * The server's metrics, following the metric flags (lifecycle warnings go to the log), with
 * the feature gates recorded.
 */
function metricsFor(opts: ServerOptions, logger: Logger): ApiServerMetrics {
  const metrics = createApiServerMetrics(
    new MetricsRegistry({ ...opts.metrics, onWarning: (m) => logger.warn(m) }),
  );
  recordFeatureInfo(metrics.registry, opts.featureGates);
  return metrics;
}

/** Starts the API server. */
export async function startServer(
  opts: ServerOptions,
  deps: { logger?: Logger } = {},
): Promise<RunningServer> {
  const logger = deps.logger ?? new Logger({ verbosity: opts.verbosity });
  for (const w of opts.warnings) logger.warn(w);
  await Deno.mkdir(opts.dataDir, { recursive: true, mode: 0o700 });
  const pki = await bootstrapServerPki(opts);
  const auditor = await auditorFor(opts.audit, logger);
  const metrics = metricsFor(opts, logger);
  const storage = await openStorage(opts, metrics);
  const parts = await startRegistry(opts, { storage, pki, logger, metrics }).catch(async (err) => {
    await storage.close();
    throw err;
  });
  const { registry, authorization } = parts;
  const agents = await nodeConnectionsFor(opts, pki);
  const resourceMetrics = startResourceMetrics(opts.resourceMetrics, { registry, agents, logger });
  const aggregator = await aggregatorFor(opts, { parts, pki, logger, metrics });

  const health = healthFor(opts, { logger, metrics, storage });
  const hooks = postStartHooks(health);
  const yamlDecoder = new YamlDecoder();
  const handler = handlerFor(opts, {
    connect: podConnectHandler(registry, agents),
    parts,
    health,
    metrics,
    aggregator,
    auditor,
    yamlDecoder,
    logger,
  });
  const inFlight = new RequestsInFlight();
  const server = await listen(opts, pki, inFlight.wrap(handler), parts.authn.clientCaPems);
  const url = serverUrlFor(opts.bindAddress, server.port);
  const kubeconfigPath = await writeKubeconfig(opts, pki, url);
  const controllers = startControllers(opts, {
    ...parts,
    storage,
    aggregator,
    logger,
    hooks,
    port: server.port,
    url,
    pki,
  });
  logger.info("serving", { url, dataDir: opts.dataDir });
  const stopping = {
    stop: async () => (
      await controllers.stop(), await aggregator.stop(), await resourceMetrics.stop()
    ),
  };
  const toStop = { opts, logger, health, server, inFlight, controllers: stopping, parts, storage };
  const release = async () => (yamlDecoder.close(), parts.authn.close(), await auditor?.close());

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
    watchFeed: parts.watchCaches.feed,
    authorization,
    ready: controllers.ready,
    close: () => stopServer(false, toStop, release),
    shutdown: () => stopServer(true, toStop, release),
  };
}

/** The aggregator over the registry's APIServices, proxying with the front-proxy certificate. */
function aggregatorFor(
  opts: ServerOptions,
  deps: { parts: RegistryParts; pki: Pki; logger: Logger; metrics: ApiServerMetrics },
): Promise<Aggregator> {
  return startAggregator({
    registry: deps.parts.registry,
    feed: deps.parts.watchCaches.feed,
    proxyClient: deps.pki.proxyClient,
    resyncMs: opts.aggregatorResyncMs,
    logger: deps.logger,
    metrics: deps.metrics.registry,
  });
}

/** The health checks, with storage's, feeding the SLI metrics. */
function healthFor(
  opts: ServerOptions,
  deps: { logger: Logger; metrics: ApiServerMetrics; storage: Storage },
): HealthChecks {
  const health = new HealthChecks({
    logger: deps.logger,
    livezGracePeriodMs: opts.livezGracePeriodMs,
    onCheckResult: deps.metrics.sli.observeHealthcheck,
  });
  health.addHealthChecks(storageCheck(() => deps.storage.ping()));
  return health;
}

/** The connections to node agents for pods' logs, exec, attach and port-forward. */
async function nodeConnectionsFor(opts: ServerOptions, pki: Pki): Promise<NodeConnections> {
  return new NodeConnections(
    await nodeConnectionOptions(opts.kubeletClient ?? {}, await signingCa(pki), {
      caFile: opts.resourceMetrics?.kubeletCertificateAuthority,
      clusterCaPem: pki.caPem ?? pki.serving.certPem,
      insecure: opts.resourceMetrics?.kubeletInsecureTls ?? false,
    }),
  );
}

/** The PKI under the data directory (generated on first start) or from the TLS flags. */
function bootstrapServerPki(opts: ServerOptions): Promise<Pki> {
  return bootstrapPki({
    dataDir: opts.dataDir,
    sans: opts.tlsSans,
    certFile: opts.tlsCertFile,
    keyFile: opts.tlsPrivateKeyFile,
    proxyClientCertFile: opts.proxyClientCertFile,
    proxyClientKeyFile: opts.proxyClientKeyFile,
  });
}

/** The request handler over the registry, with the filter chain of api_handler.ts. */
function handlerFor(
  opts: ServerOptions,
  d: {
    parts: RegistryParts;
    health: HealthChecks;
    metrics: ApiServerMetrics;
    aggregator: Aggregator;
    auditor: Parameters<typeof buildApiHandler>[0]["auditor"];
    yamlDecoder: YamlDecoder;
    logger: Logger;
    connect: ConnectHandler;
  },
): ApiHandler {
  return buildApiHandler({
    registry: d.parts.registry,
    watchCaches: d.parts.watchCaches,
    patchAppliers: patchAppliers(builtinSchemaModel()),
    yamlDecoder: d.yamlDecoder,
    authenticator: d.parts.authn.chain,
    authorizer: d.parts.authorization.chain,
    health: d.health,
    metrics: d.metrics,
    featureGates: opts.featureGates,
    logger: d.logger,
    aggregator: d.aggregator.proxy,
    aggregatedGroups: d.aggregator.groups,
    remoteOpenApi: () => d.aggregator.openApiDocs(),
    remoteOpenApiV2: () => d.aggregator.openApiV2Docs(),
    auditor: d.auditor,
    connect: d.connect,
  });
}

/** The embedded libSQL file under the data directory, or the libSQL server of `--storage-url`. */
function openStorage(opts: ServerOptions, metrics: ApiServerMetrics): Promise<LibsqlStorage> {
  return LibsqlStorage.open({
    url: opts.storageUrl ?? `file:${opts.dataDir}/state.db`,
    authToken: opts.storageAuthToken,
    historyWindowMs: opts.historyWindowMs,
    onGroupCommit: (commit) => metrics.observeGroupCommit(commit),
  });
}

/** Writes `<dataDir>/admin.kubeconfig` for `url`; returns its path. */
async function writeKubeconfig(opts: ServerOptions, pki: Pki, url: string): Promise<string> {
  const path = `${opts.dataDir}/admin.kubeconfig`;
  await writeAdminKubeconfig(path, {
    server: url,
    caPem: pki.caPem ?? pki.serving.certPem,
    clientCertPem: pki.adminClient.certPem,
    clientKeyPem: pki.adminClient.keyPem,
  });
  return path;
}

/** Serves `handler` over HTTPS with the serving certificate. */
function listen(
  opts: ServerOptions,
  pki: Pki,
  handler: ApiHandler,
  clientCaPems: string[],
): Promise<HttpsServer> {
  return serveHttps(handler, {
    hostname: opts.bindAddress,
    port: opts.securePort,
    certPem: pki.serving.certPem,
    keyPem: pki.serving.keyPem,
    requestClientCert: true,
    clientCaPems,
    http2: opts.http2MaxStreamsPerConnection > 0,
    http2MaxStreamsPerConnection: opts.http2MaxStreamsPerConnection || undefined,
  });
}
