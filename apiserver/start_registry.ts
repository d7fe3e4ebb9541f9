/**
 * The registry of kinds and what it is built with: the authorizers, the watch caches, the
 * admission plugins (kube's named, ordered set) and the authenticators.
 *
 * @module
 */
import { Logger } from "../shared/log/mod.ts";
import { namespaceLifecycle } from "./admission/namespace_lifecycle.ts";
import { nodeRestriction } from "./admission/node_restriction.ts";
import { priorityAdmission } from "./admission/priority.ts";
import { defaultStorageClass } from "./admission/default_storage_class.ts";
import { runtimeClassAdmission } from "./admission/runtime_class.ts";
import { defaultIngressClass } from "./admission/default_ingress_class.ts";
import { podSecurity } from "./admission/pod_security/pod_security.ts";
import { resourceQuota } from "./admission/resource_quota/resource_quota.ts";
import { PendingCharges } from "./admission/resource_quota/pending_charges.ts";
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
import { buildAuthenticator, type ServerAuthentication } from "./auth/authn/build_authenticator.ts";
import {
  buildAuthorizer,
  type BuiltAuthorization,
  type DelegatedAuthorization,
} from "./auth/authz/build_authorizer.ts";
import { resolveDelegatedAuthentication } from "./auth/authn/delegated_authentication.ts";
import { loadKubeconfig } from "../shared/client/kubeconfig.ts";
import { ChangeFeedResourceFeed } from "./auth/authz/resource_feed.ts";
import { type ApiServerMetrics } from "./metrics/mod.ts";
import type { ServerOptions } from "./options.ts";
import { type Pki } from "./pki/bootstrap_pki.ts";
import { accessReviewKinds } from "./registry/authorization/access_review_kinds.ts";
import { builtinKinds } from "./registry/builtin_kinds.ts";
import { ServiceAllocator } from "./registry/core/services/allocator.ts";
import { parseCIDR, parsePortRange } from "./registry/core/services/ip_range.ts";
import { rbacEscalationCheck } from "./registry/rbac/escalation_admission.ts";
import {
  certificateApproval,
  certificateSigning,
  certificateSubjectRestriction,
} from "./registry/certificates/certificatesigningrequests/signer_admission.ts";
import { ResourceRegistry } from "./registry/resource_registry.ts";
import { ServedVersions } from "./registry/runtime_config.ts";
import type { Storage } from "./storage/interface.ts";
import { ChangeFeed } from "./watch/change_feed.ts";
import { WatchCaches } from "./watch/watch_caches.ts";

/** `--service-cluster-ip-range` when not given. */
export const DEFAULT_CLUSTER_IP_RANGE = "10.96.0.0/12";

/** The registry of served kinds and what it is built with, started. */
export interface RegistryParts {
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
export async function startRegistry(
  opts: ServerOptions,
  deps: { storage: Storage; pki: Pki; logger: Logger; metrics: ApiServerMetrics },
): Promise<RegistryParts> {
  const { storage, pki, logger } = deps;
  const delegated = await resolveDelegatedAuthentication(
    opts.delegation,
    opts.authentication,
    logger,
  );
  const authorization = await buildAuthorizer(opts.authorization, {
    logger,
    metrics: deps.metrics?.registry,
    delegated: await delegatedAuthorization(opts),
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
    delegated,
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

/** Extension-server mode's authorization (`--authorization-kubeconfig`), if given. */
async function delegatedAuthorization(
  opts: ServerOptions,
): Promise<DelegatedAuthorization | undefined> {
  const d = opts.delegation;
  const file = d?.authorizationKubeconfig;
  if (!d || !file) return undefined;
  try {
    return { ...d, config: await loadKubeconfig(file) };
  } catch (err) {
    throw new Error(`--authorization-kubeconfig: ${file}: ${(err as Error).message}`);
  }
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
