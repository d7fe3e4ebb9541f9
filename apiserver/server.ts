/**
 * The API server's wiring: storage, the registry of kinds with their watch caches, admission,
 * authentication and authorization, the request handler (see api_handler.ts), the HTTPS
 * listener and the controllers, assembled in that order.
 *
 * @module
 */
import { StatusError } from "../shared/errors/status_error.ts";
import { type HttpsServer, serveHttps } from "../shared/http/https_server.ts";
import { Logger } from "../shared/log/mod.ts";
import { builtinSchemaModel } from "../shared/api/schema/builtin_model.ts";
import { namespaceLifecycle } from "./admission/namespace_lifecycle.ts";
import { nodeRestriction } from "./admission/node_restriction.ts";
import { priorityAdmission } from "./admission/priority.ts";
import { defaultStorageClass } from "./admission/default_storage_class.ts";
import { runtimeClassAdmission } from "./admission/runtime_class.ts";
import { defaultIngressClass } from "./admission/default_ingress_class.ts";
import { podSecurity } from "./admission/pod_security/pod_security.ts";
import { resourceQuota } from "./admission/resource_quota/resource_quota.ts";
import { PendingCharges } from "./admission/resource_quota/pending_charges.ts";
import { ResourceQuotaController } from "./controllers/resource_quota_controller.ts";
import { validatingAdmissionPolicy } from "./admission/policy/validating_admission_policy.ts";
import { AdmissionWebhooks } from "./admission/webhook/admission_webhooks.ts";
import { PrefetchingAuthorizer } from "./admission/policy/prefetching_authorizer.ts";
import { alwaysAdmit, alwaysDeny } from "./admission/always.ts";
import { limitRanger } from "./admission/limit_ranger.ts";
import { serviceAccountAdmission } from "./admission/service_account.ts";
import { taintNodesByCondition } from "./admission/taint_nodes_by_condition.ts";
import { defaultTolerationSeconds } from "./admission/default_toleration_seconds.ts";
import { storageObjectInUseProtection } from "./admission/storage_object_in_use_protection.ts";
import { persistentVolumeClaimResize } from "./admission/persistent_volume_claim_resize.ts";
import { admissionMetrics } from "./admission/admission_metrics.ts";
import { type AdmissionPluginFactories, buildAdmissionPlugins } from "./admission/plugin_names.ts";
import type { AdmissionPlugin } from "./registry/generic/admission.ts";
import type { Authorizer } from "./auth/authz/authorizer.ts";
import { serviceAccountController } from "./controllers/service_account_controller.ts";
import { rootCaCertPublisher } from "./controllers/root_ca_cert_publisher.ts";
import { StorageProtectionController } from "./controllers/storage_protection_controller.ts";
import { type ApiHandler, buildApiHandler } from "./api_handler.ts";
import { patchAppliers } from "./http/patch_appliers.ts";
import { YamlDecoder } from "./http/yaml_decoder.ts";
import { RequestsInFlight } from "./http/requests_in_flight.ts";
import { stopServer } from "./graceful_shutdown.ts";
import { buildAuthenticator, type ServerAuthentication } from "./auth/authn/build_authenticator.ts";
import { ensureSystemPriorityClasses } from "./registry/scheduling/priorityclasses/system_priority_classes.ts";
import { reconcileDefaultPolicy } from "./auth/authz/bootstrap/reconcile_policy.ts";
import { ensureFlowControlConfiguration } from "./registry/flowcontrol/ensure_configuration.ts";
import { FlowSchemaStatusController } from "./controllers/flow_schema_status_controller.ts";
import { ValidatingAdmissionPolicyStatusController } from "./controllers/validating_admission_policy_status_controller.ts";
import { PolicyTypeChecker } from "./admission/policy/type_checker.ts";
import { buildAuthorizer, type BuiltAuthorization } from "./auth/authz/build_authorizer.ts";
import { ChangeFeedResourceFeed } from "./auth/authz/resource_feed.ts";
import {
  ClusterRoleAggregationController,
} from "./controllers/clusterrole_aggregation_controller.ts";
import { GarbageCollector } from "./controllers/garbage_collector.ts";
import { DisruptionController } from "./controllers/disruption_controller.ts";
import { NamespaceController } from "./controllers/namespace_controller.ts";
import { CrdController } from "./controllers/crd_controller.ts";
import { WebhookClient } from "./webhook/webhook_client.ts";
import { registryEndpointSource } from "./webhook/service_resolver.ts";
import { NodeLifecycleController } from "./controllers/node_lifecycle_controller.ts";
import { Scheduler } from "./controllers/scheduler/scheduler.ts";
import { HealthChecks, storageCheck } from "./health/mod.ts";
import { type PostStartHooks, postStartHooks } from "./health/post_start_hooks.ts";
import { auditorFor } from "./audit/auditor.ts";
import { type ApiServerMetrics, createApiServerMetrics, MetricsRegistry } from "./metrics/mod.ts";
import type { ServerOptions } from "./options.ts";
import { bootstrapPki, type Pki } from "./pki/bootstrap_pki.ts";
import { serverUrlFor, writeAdminKubeconfig } from "./pki/write_admin_kubeconfig.ts";
import { accessReviewKinds } from "./registry/authorization/access_review_kinds.ts";
import { builtinKinds } from "./registry/builtin_kinds.ts";
import {
  CLUSTER_IP_PREFIX,
  NODE_PORT_PREFIX,
  ServiceAllocator,
} from "./registry/core/services/allocator.ts";
import { parseCIDR, parsePortRange } from "./registry/core/services/ip_range.ts";
import {
  advertiseAddressFor,
  KubernetesServiceController,
} from "./controllers/kubernetes_service_controller.ts";
import { ServiceAllocationRepair } from "./controllers/service_allocation_repair.ts";
import {
  defaultControllerOptions,
  NodeJoinControllers,
} from "./controllers/node_join_controllers.ts";
import { rbacEscalationCheck } from "./registry/rbac/escalation_admission.ts";
import {
  certificateApproval,
  certificateSigning,
  certificateSubjectRestriction,
} from "./registry/certificates/certificatesigningrequests/signer_admission.ts";
import { ResourceRegistry } from "./registry/resource_registry.ts";
import { ServedVersions } from "./registry/runtime_config.ts";
import type { Storage } from "./storage/interface.ts";
import { LibsqlStorage } from "./storage/libsql/libsql_storage.ts";
import { ChangeFeed } from "./watch/change_feed.ts";
import { type Aggregator, startAggregator } from "./aggregator/aggregator.ts";
import { WatchCaches } from "./watch/watch_caches.ts";

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

/** `--service-cluster-ip-range` when not given. */
const DEFAULT_CLUSTER_IP_RANGE = "10.96.0.0/12";

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
    proxyClientCertFile: opts.proxyClientCertFile,
    proxyClientKeyFile: opts.proxyClientKeyFile,
  });
  const auditor = await auditorFor(opts.audit, logger);
  const metrics = createApiServerMetrics(new MetricsRegistry({ currentVersion: "1.32" }));
  const storage = await openStorage(opts, metrics);
  const parts = await startRegistry(opts, { storage, pki, logger, metrics }).catch(async (err) => {
    await storage.close();
    throw err;
  });
  const { registry, authorization } = parts;
  const aggregator = await startAggregator({
    registry,
    feed: parts.watchCaches.feed,
    proxyClient: pki.proxyClient,
    resyncMs: opts.aggregatorResyncMs,
    logger,
  });

  const health = new HealthChecks({ logger, livezGracePeriodMs: opts.livezGracePeriodMs });
  health.addHealthChecks(storageCheck(() => storage.ping()));
  const hooks = postStartHooks(health);
  const yamlDecoder = new YamlDecoder();
  const handler = buildApiHandler({
    registry,
    watchCaches: parts.watchCaches,
    patchAppliers: patchAppliers(builtinSchemaModel()),
    yamlDecoder,
    authenticator: parts.authn.chain,
    authorizer: authorization.chain,
    health,
    metrics,
    featureGates: opts.featureGates,
    logger,
    aggregator: aggregator.proxy,
    aggregatedGroups: aggregator.groups,
    remoteOpenApi: () => aggregator.openApiDocs(),
    auditor,
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
  const stopping = { stop: async () => (await controllers.stop(), await aggregator.stop()) };
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

/** The registry of served kinds and what it is built with, started. */
interface RegistryParts {
  registry: ResourceRegistry;
  watchCaches: WatchCaches;
  authn: ServerAuthentication;
  authorization: BuiltAuthorization;
  /** The ResourceQuota admission's charges whose objects are not stored yet (for the controller). */
  pendingCharges: PendingCharges;
  /** Stops the change feed and the authorizer's following of it. */
  stopFeeds(): Promise<void>;
}

/**
 * Builds the registry of kinds over `storage`: the authorizer first (admission and the access
 * reviews ask it), the watch caches (each store gets its cache), admission, the authenticator
 * (it reads Secrets and ServiceAccounts through the registry, and TokenRequest and TokenReview
 * use it), the kinds; then starts the change feed and feeds the authorizer's indexes from it,
 * so they see every API server's RBAC and pod changes on a shared database.
 */
async function startRegistry(
  opts: ServerOptions,
  deps: { storage: Storage; pki: Pki; logger: Logger; metrics: ApiServerMetrics },
): Promise<RegistryParts> {
  const { storage, pki, logger } = deps;
  const authorization = await buildAuthorizer(opts.authorization, {
    logger,
    metrics: deps.metrics?.registry,
  });
  const authorizer = () => authorization.chain;
  const watchCaches = newWatchCaches(opts, storage, logger);
  const pendingCharges = new PendingCharges();
  const webhookFeed = new ChangeFeedResourceFeed(watchCaches.feed);
  const webhooks = new AdmissionWebhooks({
    feed: () => webhookFeed,
    metrics: deps.metrics?.registry,
    celAuthorizer: () => new PrefetchingAuthorizer(authorizer()),
  });
  const servedVersions = new ServedVersions(opts.runtimeConfig);
  const registry = new ResourceRegistry({
    storage,
    served: (def) => servedVersions.serves(def),
    listCacheFor: (store) => watchCaches.listCacheFor(store),
    dropListCache: (store) => watchCaches.drop(store),
    admissionPlugins: (kinds) => [
      // Not an admission plugin in kube (the RBAC registry's own check): always on.
      rbacEscalationCheck({ authorizer, rbac: () => authorization.rbac }),
      ...buildAdmissionPlugins(
        opts.admission.plugins,
        admissionFactories(kinds, {
          authorizer,
          feed: watchCaches.feed,
          pendingCharges,
          webhooks,
        }),
      ),
      ...(opts.admission.extraPlugins ?? []),
    ],
    admissionObserver: admissionMetrics(deps.metrics.registry),
  });
  const authn = await buildAuthenticator(opts.authentication, {
    pki,
    registry,
    logger,
    metrics: deps.metrics?.registry,
  });
  addBuiltinKinds(registry, opts, storage, authn);
  for (const kind of accessReviewKinds(authorizer)) registry.add(kind);
  const stopFeeds = async () => {
    webhooks.close();
    authorization.stop();
    await watchCaches.feed.stop();
  };
  try {
    servedVersions.setBuiltins(registry.all().map((s) => s.def)); // throws on a bad config
    await watchCaches.feed.start();
    await authorization.follow(new ChangeFeedResourceFeed(watchCaches.feed));
  } catch (err) {
    await stopFeeds();
    authn.close();
    throw err;
  }
  return { registry, watchCaches, authn, authorization, pendingCharges, stopFeeds };
}

/** The change feed over `storage` and the watch caches it fills. */
function newWatchCaches(opts: ServerOptions, storage: Storage, logger: Logger): WatchCaches {
  return new WatchCaches(
    new ChangeFeed({
      storage,
      remote: !!opts.storageUrl,
      historyWindowMs: opts.historyWindowMs,
      tuning: opts.watchTuning,
      onError: (message, err) => logger.error(message, { err: String(err) }),
    }),
  );
}

/** Serves every built-in kind, with what their strategies need. */
function addBuiltinKinds(
  registry: ResourceRegistry,
  opts: ServerOptions,
  storage: Storage,
  authn: Pick<RegistryParts["authn"], "tokenRequests" | "tokenReviewer">,
): void {
  const kinds = builtinKinds({
    tokenRequests: authn.tokenRequests,
    tokenReviewer: authn.tokenReviewer,
    serviceAllocator: new ServiceAllocator({
      storage,
      clusterIPRange: parseCIDR(opts.serviceClusterIPRange ?? DEFAULT_CLUSTER_IP_RANGE),
      nodePortRange: parsePortRange(opts.serviceNodePortRange ?? "30000-32767"),
    }),
    pods: () => registry.lookup("", "v1", "pods")!,
    budgets: () => registry.lookup("policy", "v1", "poddisruptionbudgets")!,
    components: { "storage-0": () => storage.ping() },
  });
  for (const kind of kinds) registry.add(kind);
}

/**
 * The factory of every admission plugin this server implements, given its dependencies; the
 * plugins read kinds through the registry lazily (no kind exists when they are built).
 */
function admissionFactories(
  kinds: ResourceRegistry,
  deps: {
    authorizer: () => Authorizer;
    feed: ChangeFeed;
    pendingCharges: PendingCharges;
    webhooks: AdmissionWebhooks;
  },
): AdmissionPluginFactories {
  const { authorizer } = deps;
  const core = (resource: string) => () => kinds.lookup("", "v1", resource)!;
  return {
    AlwaysAdmit: alwaysAdmit,
    NamespaceLifecycle: () => namespaceLifecycle(core("namespaces")),
    LimitRanger: () => limitRanger(core("limitranges")),
    ServiceAccount: () => serviceAccountAdmission(core("serviceaccounts")),
    NodeRestriction: nodeRestriction,
    TaintNodesByCondition: taintNodesByCondition,
    Priority: () =>
      priorityAdmission(() => kinds.lookup("scheduling.k8s.io", "v1", "priorityclasses")),
    DefaultTolerationSeconds: () => defaultTolerationSeconds(),
    DefaultStorageClass: () =>
      defaultStorageClass(() => kinds.lookup("storage.k8s.io", "v1", "storageclasses")),
    StorageObjectInUseProtection: storageObjectInUseProtection,
    PersistentVolumeClaimResize: () =>
      persistentVolumeClaimResize(() => kinds.lookup("storage.k8s.io", "v1", "storageclasses")),
    RuntimeClass: () =>
      runtimeClassAdmission(() => kinds.lookup("node.k8s.io", "v1", "runtimeclasses")),
    CertificateApproval: () => certificateApproval(authorizer),
    CertificateSigning: () => certificateSigning(authorizer),
    CertificateSubjectRestriction: certificateSubjectRestriction,
    DefaultIngressClass: () =>
      defaultIngressClass(() => kinds.lookup("networking.k8s.io", "v1", "ingressclasses")),
    PodSecurity: () => podSecurity(kinds),
    ValidatingAdmissionPolicy: () =>
      validatingAdmissionPolicy({ registry: kinds, feed: deps.feed, authorizer }),
    ResourceQuota: () => resourceQuota(kinds, deps.pendingCharges),
    MutatingAdmissionWebhook: () => deps.webhooks.mutating(kinds),
    ValidatingAdmissionWebhook: () => deps.webhooks.validating(kinds),
    AlwaysDeny: alwaysDeny,
  } satisfies Record<string, () => AdmissionPlugin>;
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

/** The controllers, started once the bootstrap objects exist. */
interface Controllers {
  /** Resolves once the bootstrap objects exist and the controllers run. */
  ready: Promise<void>;
  /** Waits for the bootstrap, then stops every controller. */
  stop(): Promise<void>;
}

/** What the controllers are started with. */
type ControllerDeps = RegistryParts & {
  storage: Storage;
  aggregator: Aggregator;
  logger: Logger;
  hooks: PostStartHooks;
  /** The secure port (the kubernetes Service's target). */
  port: number;
  /** The URL nodes join (written in cluster-info). */
  url: string;
  pki: Pki;
};

/**
 * Creates the system namespaces and the default RBAC policy, then starts the controllers
 * (ClusterRole aggregation, namespaces, node lifecycle, garbage collection, disruption budgets,
 * the `default` ServiceAccount and `kube-root-ca.crt` ConfigMap of every namespace, storage
 * protection finalizers).
 */
function startControllers(opts: ServerOptions, deps: ControllerDeps): Controllers {
  const { registry, logger } = deps;
  const { on, joining } = selectedControllers(opts, deps);
  const services = serviceControllers(opts, deps);
  const aggregation = new ClusterRoleAggregationController({
    index: deps.authorization.index,
    clusterRoles: () => registry.lookup("rbac.authorization.k8s.io", "v1", "clusterroles")!,
    logger,
  });
  const flowControl = flowControlParts(registry, logger);
  // Conversion webhooks of custom resources, reached by URL or through a Service.
  const conversionWebhooks = new WebhookClient({ endpoints: registryEndpointSource(registry) });
  const crds = new CrdController({
    registry,
    feed: deps.watchCaches.feed,
    logger,
    conversion: { webhooks: conversionWebhooks },
  });
  const running: Runnable[] = [];
  const { hooks } = deps;
  const ready = ensureBootstrapObjects(registry, hooks, flowControl.ensure).then(async () => {
    if (on("clusterrole-aggregation-controller")) aggregation.start();
    hooks["start-clusterrole-aggregation-controller"].done();
    await services.start();
    hooks["bootstrap-controller"].done();
    hooks["start-service-ip-repair-controllers"].done();
    // Established custom resources are served again before the server reports ready.
    await crds.start();
    hooks["crd-informer-synced"].done();
    await joining.ensure();
    await deps.aggregator.startControllers();
    if (opts.runControllers !== false) {
      running.push(...clusterControllers(opts, deps, on), flowControl.status, joining);
      for (const c of running) await c.start();
    }
    for (const hook of Object.values(hooks)) hook.done();
  });
  ready.catch((err) => logger.error("bootstrap failed", { err: String(err) }));
  return {
    ready,
    async stop() {
      await ready.catch(() => {});
      await crds.stop();
      conversionWebhooks.close();
      await services.stop();
      await aggregation.stop();
      for (const c of running) await c.stop();
    },
  };
}

/** A controller started once the cluster is bootstrapped and stopped with the server. */
interface Runnable {
  start(): void | Promise<void>;
  stop(): void | Promise<void>;
}

/** The controllers `--controllers` selects that follow the cluster, in start order. */
function clusterControllers(
  opts: ServerOptions,
  deps: ControllerDeps,
  on: (name: string) => boolean,
): Runnable[] {
  const { registry, logger } = deps;
  const feed = deps.watchCaches.feed;
  const caPem = deps.pki.caPem ?? deps.pki.serving.certPem;
  const all: [string, () => Runnable][] = [
    ["namespace-controller", () => new NamespaceController({ registry, feed, logger })],
    ["node-lifecycle-controller", () =>
      new NodeLifecycleController({
        registry,
        gracePeriodMs: opts.nodeMonitorGracePeriodMs,
        monitorPeriodMs: Math.min(5_000, Math.max(500, opts.nodeMonitorGracePeriodMs / 4)),
        logger,
      })],
    ["garbage-collector-controller", () => new GarbageCollector({ registry, feed, logger })],
    ["disruption-controller", () => new DisruptionController({ registry, feed, logger })],
    ["resourcequota-controller", () =>
      new ResourceQuotaController({
        registry,
        feed,
        logger,
        pendingCharges: deps.pendingCharges,
      })],
    [
      "validatingadmissionpolicy-status-controller",
      () => policyStatusController(registry, feed, logger),
    ],
  ];
  return [
    ...all.filter(([name]) => on(name)).map(([, make]) => make()),
    namespaceControllers(registry, feed, caPem, logger, on),
    // The scheduler runs unless --disable-scheduler.
    ...(opts.disableScheduler ? [] : [new Scheduler({ registry, feed, logger })]),
  ];
}

/**
 * The controllers of what every namespace holds: the `default` ServiceAccount, the
 * `kube-root-ca.crt` ConfigMap, and the release of storage protection finalizers.
 */
function namespaceControllers(
  registry: ResourceRegistry,
  feed: ChangeFeed,
  caPem: string,
  logger: Logger,
  on: (name: string) => boolean,
): { start(): Promise<void>; stop(): Promise<void> } {
  const namespaceObjects = [
    on("serviceaccount-controller") && serviceAccountController({ registry, feed, logger }),
    on("root-ca-certificate-publisher-controller") &&
    rootCaCertPublisher({ registry, feed, caPem, logger }),
  ].filter((c) => c !== false);
  const protection = on("persistentvolumeclaim-protection-controller") ||
    on("persistentvolume-protection-controller");
  const storageProtection = new StorageProtectionController({ registry, feed, logger });
  return {
    async start() {
      for (const c of namespaceObjects) await c.start();
      if (protection) await storageProtection.start();
    },
    async stop() {
      for (const c of namespaceObjects) await c.stop();
      await storageProtection.stop();
    },
  };
}

/** Which controllers `--controllers` selects, and the node-join ones. */
function selectedControllers(opts: ServerOptions, deps: ControllerDeps) {
  const selected = opts.controllers ?? defaultControllerOptions();
  const joining = new NodeJoinControllers({
    ...deps,
    options: selected,
    bindAddress: opts.bindAddress,
    feed: deps.watchCaches.feed,
    authorizer: () => deps.authorization.chain,
  });
  return { on: (name: string) => selected.selection.enabled(name), joining };
}

/**
 * What every API server runs for Services: the `kubernetes` Service and its Endpoints, and
 * the repair loop of the ClusterIP and NodePort allocations.
 */
function serviceControllers(
  opts: ServerOptions,
  deps: { registry: ResourceRegistry; storage: Storage; logger: Logger; port: number },
): { start(): Promise<void>; stop(): Promise<void> } {
  const { registry, storage, logger } = deps;
  const kubernetesService = new KubernetesServiceController({
    registry,
    clusterIP: parseCIDR(opts.serviceClusterIPRange ?? DEFAULT_CLUSTER_IP_RANGE).at(0),
    advertiseAddress: advertiseAddressFor(opts.bindAddress),
    securePort: deps.port,
    logger,
  });
  const repair = new ServiceAllocationRepair({
    storage,
    services: registry.lookup("", "v1", "services")!,
    prefixes: [CLUSTER_IP_PREFIX, NODE_PORT_PREFIX],
    logger,
  });
  return {
    async start() {
      await kubernetesService.start();
      await repair.start();
    },
    async stop() {
      await kubernetesService.stop();
      await repair.stop();
    },
  };
}

/** The APF configuration ensured at start and the FlowSchemas' status controller. */
function flowControlParts(registry: ResourceRegistry, logger: Logger) {
  const priorityLevels = registry.lookup(APF_GROUP, "v1", "prioritylevelconfigurations")!;
  const flowSchemas = registry.lookup(APF_GROUP, "v1", "flowschemas")!;
  return {
    ensure: () => ensureFlowControlConfiguration(priorityLevels, flowSchemas),
    status: new FlowSchemaStatusController({ flowSchemas, priorityLevels, logger }),
  };
}

const APF_GROUP = "flowcontrol.apiserver.k8s.io";

/** Type checks ValidatingAdmissionPolicies into their status (schemas of the built-in model). */
function policyStatusController(registry: ResourceRegistry, feed: ChangeFeed, logger: Logger) {
  const kindsFor = (group: string, version: string, resource: string) => {
    const def = registry.lookup(group, version, resource)?.def;
    return def ? [{ group: def.group, version: def.version, kind: def.kind }] : [];
  };
  return new ValidatingAdmissionPolicyStatusController({
    policies: registry.lookup("admissionregistration.k8s.io", "v1", "validatingadmissionpolicies")!,
    feed,
    checker: new PolicyTypeChecker(builtinSchemaModel(), kindsFor),
    logger,
  });
}

/**
 * The objects every server ensures at start, in order: the system namespaces, the system
 * priority classes, the default RBAC policy, the APF configuration (`ensureFlowControl`).
 */
async function ensureBootstrapObjects(
  registry: ResourceRegistry,
  hooks: PostStartHooks,
  ensureFlowControl: () => Promise<void>,
): Promise<void> {
  await ensureSystemNamespaces(registry);
  hooks["start-system-namespaces-controller"].done();
  await ensureSystemPriorityClasses(
    registry.lookup("scheduling.k8s.io", "v1", "priorityclasses")!,
  );
  hooks["scheduling/bootstrap-system-priority-classes"].done();
  await reconcileDefaultPolicy(
    registry.lookup("rbac.authorization.k8s.io", "v1", "clusterroles")!,
    registry.lookup("rbac.authorization.k8s.io", "v1", "clusterrolebindings")!,
  );
  hooks["rbac/bootstrap-roles"].done();
  await ensureFlowControl();
  hooks["priority-and-fairness-config-producer"].done();
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
