/**
 * The controllers the API server runs, started once the bootstrap objects exist (system
 * namespaces, priority classes, the default RBAC policy, flow control configuration), each
 * selected by `--controllers` under its kube name.
 *
 * @module
 */
import { StatusError } from "../shared/errors/status_error.ts";
import { Logger } from "../shared/log/mod.ts";
import { builtinSchemaModel } from "../shared/api/schema/builtin_model.ts";
import { ResourceQuotaController } from "./controllers/resource_quota_controller.ts";
import { serviceAccountController } from "./controllers/service_account_controller.ts";
import { rootCaCertPublisher } from "./controllers/root_ca_cert_publisher.ts";
import { StorageProtectionController } from "./controllers/storage_protection_controller.ts";
import { ensureSystemPriorityClasses } from "./registry/scheduling/priorityclasses/system_priority_classes.ts";
import { reconcileDefaultPolicy } from "./auth/authz/bootstrap/reconcile_policy.ts";
import { ensureFlowControlConfiguration } from "./registry/flowcontrol/ensure_configuration.ts";
import { FlowSchemaStatusController } from "./controllers/flow_schema_status_controller.ts";
import { ValidatingAdmissionPolicyStatusController } from "./controllers/validating_admission_policy_status_controller.ts";
import { PolicyTypeChecker } from "./admission/policy/type_checker.ts";
import { ClusterRoleAggregationController } from "./controllers/clusterrole_aggregation_controller.ts";
import { GarbageCollector } from "./controllers/garbage_collector.ts";
import { DisruptionController } from "./controllers/disruption_controller.ts";
import { NamespaceController } from "./controllers/namespace_controller.ts";
import { CrdController } from "./controllers/crd_controller.ts";
import { WebhookClient } from "./webhook/webhook_client.ts";
import { registryEndpointSource } from "./webhook/service_resolver.ts";
import { NodeLifecycleController } from "./controllers/node_lifecycle_controller.ts";
import {
  REPLICA_SET,
  ReplicaSetController,
  REPLICATION_CONTROLLER,
} from "./controllers/replica_set_controller.ts";
import { DeploymentController } from "./controllers/deployment/deployment_controller.ts";
import { EndpointsController } from "./controllers/endpoints/endpoints_controller.ts";
import { EndpointSliceController } from "./controllers/endpoints/endpoint_slice_controller.ts";
import { EndpointSliceMirroringController } from "./controllers/endpoints/endpoint_slice_mirroring_controller.ts";
import { PodGcController } from "./controllers/pod_gc_controller.ts";
import { Scheduler } from "./controllers/scheduler/scheduler.ts";
import { JobController } from "./controllers/job/job_controller.ts";
import { TtlAfterFinishedController } from "./controllers/job/ttl_after_finished_controller.ts";
import { CronJobController } from "./controllers/cronjob/cronjob_controller.ts";
import { DaemonSetController } from "./controllers/daemonset/daemonset_controller.ts";
import { StatefulSetController } from "./controllers/statefulset/statefulset_controller.ts";
import { TaintEvictionController } from "./controllers/tainteviction/taint_eviction_controller.ts";
import {
  ElectedControllers,
  type Runnable,
  UnelectedControllers,
} from "./controllers/leader/elected_controllers.ts";
import { type PostStartHooks } from "./health/post_start_hooks.ts";
import type { ServerOptions } from "./options.ts";
import { type Pki } from "./pki/bootstrap_pki.ts";
import { CLUSTER_IP_PREFIX, NODE_PORT_PREFIX } from "./registry/core/services/allocator.ts";
import { parseCIDR } from "./registry/core/services/ip_range.ts";
import {
  advertiseAddressFor,
  KubernetesServiceController,
} from "./controllers/kubernetes_service_controller.ts";
import { ServiceAllocationRepair } from "./controllers/service_allocation_repair.ts";
import {
  defaultControllerOptions,
  NodeJoinControllers,
} from "./controllers/node_join_controllers.ts";
import { ResourceRegistry } from "./registry/resource_registry.ts";
import type { Storage } from "./storage/interface.ts";
import { ChangeFeed } from "./watch/change_feed.ts";
import { type Aggregator } from "./aggregator/aggregator.ts";
import {
  type ClusterAuthenticationInfo,
  publishClusterAuthentication,
} from "./controllers/cluster_authentication_trust.ts";
import { DEFAULT_CLUSTER_IP_RANGE, type RegistryParts } from "./start_registry.ts";

/** Namespaces that exist from the first start. */
export const SYSTEM_NAMESPACES = ["default", "kube-system", "kube-public", "kube-node-lease"];

/** The controllers, started once the bootstrap objects exist. */
export interface Controllers {
  /** Resolves once the bootstrap objects exist and the controllers run. */
  ready: Promise<void>;
  /** Waits for the bootstrap, then stops every controller. */
  stop(): Promise<void>;
}

/** What the controllers are started with. */
export type ControllerDeps = RegistryParts & {
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
export function startControllers(opts: ServerOptions, deps: ControllerDeps): Controllers {
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
    await publishClusterAuthentication(registry, await clusterAuthenticationInfo(opts, deps.pki));
    await deps.aggregator.startControllers();
    if (opts.runControllers !== false) {
      running.push(...electedControllers(opts, deps, on), flowControl.status, joining);
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

/**
 * What the extension-apiserver-authentication ConfigMap publishes: the client CA, and the
 * front proxy's CA and headers (`--requestheader-*`, else the generated front-proxy CA).
 */
async function clusterAuthenticationInfo(
  opts: ServerOptions,
  pki: Pki,
): Promise<ClusterAuthenticationInfo> {
  const a = opts.authentication;
  const read = (file: string | undefined) => file ? Deno.readTextFile(file) : undefined;
  const flagCa = await read(a.requestHeaderClientCaFile);
  return {
    clientCaPem: await read(a.clientCaFile) ?? pki.clientCa.certPem,
    requestHeaderCaPem: flagCa ?? pki.frontProxyCa?.certPem,
    requestHeaderAllowedNames: flagCa ? a.requestHeaderAllowedNames : ["front-proxy-client"],
    requestHeaderUsernameHeaders: a.requestHeaderUsernameHeaders,
    requestHeaderGroupHeaders: a.requestHeaderGroupHeaders,
    requestHeaderExtraHeadersPrefixes: a.requestHeaderExtraHeadersPrefixes,
    requestHeaderUidHeaders: a.requestHeaderUidHeaders,
  };
}

/**
 * The controllers and the scheduler, each set run by the holder of its Lease in kube-system
 * (`kube-controller-manager`, `kube-scheduler`), or at once with `--leader-elect=false`.
 */
function electedControllers(
  opts: ServerOptions,
  deps: ControllerDeps,
  on: (name: string) => boolean,
): Runnable[] {
  const election = (opts.controllers ?? defaultControllerOptions()).leaderElection;
  const elected = (name: string, component: string, make: () => Runnable[]): Runnable =>
    election.enabled
      ? new ElectedControllers({
        registry: deps.registry,
        namespace: election.resourceNamespace,
        name,
        identity: election.identity,
        timing: election,
        make,
        component,
        logger: deps.logger,
      })
      : new UnelectedControllers(make);
  const feed = deps.watchCaches.feed;
  const { registry, logger } = deps;
  return [
    elected(
      election.resourceName,
      "kube-controller-manager",
      () => clusterControllers(opts, deps, on),
    ),
    // The scheduler runs unless --disable-scheduler.
    ...(opts.disableScheduler ? [] : [
      elected("kube-scheduler", "default-scheduler", () => [
        new Scheduler({ registry, feed, logger }),
      ]),
    ]),
  ];
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
      "replicaset-controller",
      () => new ReplicaSetController({ registry, feed, logger, kind: REPLICA_SET }),
    ],
    [
      "replicationcontroller-controller",
      () => new ReplicaSetController({ registry, feed, logger, kind: REPLICATION_CONTROLLER }),
    ],
    ["deployment-controller", () => new DeploymentController({ registry, feed, logger })],
    ["endpoints-controller", () => new EndpointsController({ registry, feed, logger })],
    ["endpointslice-controller", () => new EndpointSliceController({ registry, feed, logger })],
    [
      "endpointslice-mirroring-controller",
      () => new EndpointSliceMirroringController({ registry, feed, logger }),
    ],
    [
      "pod-garbage-collector-controller",
      () =>
        new PodGcController({
          registry,
          feed,
          logger,
          terminatedPodThreshold:
            (opts.controllers ?? defaultControllerOptions()).terminatedPodGcThreshold,
        }),
    ],
    [
      "validatingadmissionpolicy-status-controller",
      () => policyStatusController(registry, feed, logger),
    ],
    ["job-controller", () => new JobController({ registry, feed, logger })],
    ["cronjob-controller", () => new CronJobController({ registry, feed, logger })],
    [
      "ttl-after-finished-controller",
      () => new TtlAfterFinishedController({ registry, feed, logger }),
    ],
    ["daemonset-controller", () => new DaemonSetController({ registry, feed, logger })],
    ["statefulset-controller", () => new StatefulSetController({ registry, feed, logger })],
    ["taint-eviction-controller", () => new TaintEvictionController({ registry, feed, logger })],
  ];
  return [
    ...all.filter(([name]) => on(name)).map(([, make]) => make()),
    namespaceControllers(registry, feed, caPem, logger, on),
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
