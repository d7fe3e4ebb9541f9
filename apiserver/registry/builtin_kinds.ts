/** The built-in kinds this server serves, in discovery order. */
import type { KindDef, SubresourceDef } from "./generic/kind.ts";
import { namespaceKind } from "./core/namespaces/strategy.ts";
import { nodeKind } from "./core/nodes/strategy.ts";
import { podKind } from "./core/pods/strategy.ts";
import { bindingKind, podBindingSubresource } from "./core/pods/binding.ts";
import { podEvictionSubresource } from "./core/pods/eviction.ts";
import { podDisruptionBudgetKind } from "./policy/poddisruptionbudgets/strategy.ts";
import type { Store } from "./generic/store.ts";
import { componentStatusKind, type HealthCheck } from "./core/componentstatuses/strategy.ts";
import { configMapKind } from "./core/configmaps/strategy.ts";
import { secretKind } from "./core/secrets/strategy.ts";
import {
  serviceAccountKind,
  serviceAccountKindWithToken,
} from "./core/serviceaccounts/strategy.ts";
import { eventKind } from "./core/events/strategy.ts";
import { endpointsKind } from "./core/endpoints/strategy.ts";
import { serviceKind } from "./core/services/strategy.ts";
import { podTemplateKind } from "./core/podtemplates/strategy.ts";
import { limitRangeKind } from "./core/limitranges/strategy.ts";
import { resourceQuotaKind } from "./core/resourcequotas/strategy.ts";
import { persistentVolumeClaimKind } from "./core/persistentvolumeclaims/strategy.ts";
import { persistentVolumeKind } from "./core/persistentvolumes/strategy.ts";
import { replicationControllerKind } from "./core/replicationcontrollers/strategy.ts";
import type { ServiceAllocator } from "./core/services/allocator.ts";
import { leaseKind } from "./coordination/leases/strategy.ts";
import { deploymentKind } from "./apps/deployments/strategy.ts";
import { replicaSetKind } from "./apps/replicasets/strategy.ts";
import { statefulSetKind } from "./apps/statefulsets/strategy.ts";
import { daemonSetKind } from "./apps/daemonsets/strategy.ts";
import { controllerRevisionKind } from "./apps/controllerrevisions/strategy.ts";
import { jobKind } from "./batch/jobs/strategy.ts";
import { cronJobKind } from "./batch/cronjobs/strategy.ts";
import { horizontalPodAutoscalerKind } from "./autoscaling/horizontalpodautoscalers/strategy.ts";
import { horizontalPodAutoscalerV1Kind } from "./autoscaling/horizontalpodautoscalers/v1.ts";
import { eventsV1EventKind } from "./events/events/strategy.ts";
import { ingressKind } from "./networking/ingresses/strategy.ts";
import { ingressClassKind } from "./networking/ingressclasses/strategy.ts";
import { networkPolicyKind } from "./networking/networkpolicies/strategy.ts";
import { endpointSliceKind } from "./discovery/endpointslices/strategy.ts";
import { roleKind } from "./rbac/roles/strategy.ts";
import { clusterRoleKind } from "./rbac/clusterroles/strategy.ts";
import { roleBindingKind } from "./rbac/rolebindings/strategy.ts";
import { clusterRoleBindingKind } from "./rbac/clusterrolebindings/strategy.ts";
import { selfSubjectReviewKind } from "./authentication/selfsubjectreviews/strategy.ts";
import { tokenReviewKind } from "./authentication/tokenreviews/strategy.ts";
import { mutatingWebhookConfigurationKind } from "./admissionregistration/mutatingwebhookconfigurations/strategy.ts";
import { validatingWebhookConfigurationKind } from "./admissionregistration/validatingwebhookconfigurations/strategy.ts";
import { validatingAdmissionPolicyKind } from "./admissionregistration/validatingadmissionpolicies/strategy.ts";
import { validatingAdmissionPolicyBindingKind } from "./admissionregistration/validatingadmissionpolicybindings/strategy.ts";
import { storageClassKind } from "./storage/storageclasses/strategy.ts";
import { csiDriverKind } from "./storage/csidrivers/strategy.ts";
import { csiNodeKind } from "./storage/csinodes/strategy.ts";
import { csiStorageCapacityKind } from "./storage/csistoragecapacities/strategy.ts";
import { volumeAttachmentKind } from "./storage/volumeattachments/strategy.ts";
import { priorityClassKind } from "./scheduling/priorityclasses/strategy.ts";
import { runtimeClassKind } from "./node/runtimeclasses/strategy.ts";
import type { TokenRequestDeps } from "./authentication/tokenrequests/token_request.ts";
import type { Authenticator } from "../auth/authn/authenticator.ts";
import { certificateSigningRequestKind } from "./certificates/certificatesigningrequests/strategy.ts";
import { flowSchemaKind } from "./flowcontrol/flowschemas/strategy.ts";
import { priorityLevelConfigurationKind } from "./flowcontrol/prioritylevelconfigurations/strategy.ts";
import { apiServiceKind } from "./apiregistration/apiservices/strategy.ts";
import { customResourceDefinitionKind } from "./apiextensions/customresourcedefinitions/strategy.ts";
import {
  validatingAdmissionPolicyBindingV1beta1Kind,
  validatingAdmissionPolicyV1beta1Kind,
} from "./admissionregistration/policy_versions.ts";
import {
  volumeAttributesClassKind,
  volumeAttributesClassV1alpha1Kind,
} from "./storage/volumeattributesclasses/strategy.ts";
import { leaseCandidateKind } from "./coordination/leasecandidates/strategy.ts";
import {
  mutatingAdmissionPolicyBindingKind,
  mutatingAdmissionPolicyKind,
} from "./admissionregistration/mutatingadmissionpolicies/strategy.ts";
import { clusterTrustBundleKind } from "./certificates/clustertrustbundles/strategy.ts";
import { deviceClassKind } from "./resource/deviceclasses/strategy.ts";
import { resourceClaimKind } from "./resource/resourceclaims/strategy.ts";
import { resourceClaimTemplateKind } from "./resource/resourceclaimtemplates/strategy.ts";
import { resourceSliceKind } from "./resource/resourceslices/strategy.ts";
import {
  deviceClassV1alpha3Kind,
  resourceClaimTemplateV1alpha3Kind,
  resourceClaimV1alpha3Kind,
  resourceSliceV1alpha3Kind,
} from "./resource/v1alpha3.ts";

/** Every built-in kind. */
export const BUILTIN_KINDS: readonly KindDef[] = [
  configMapKind,
  endpointsKind,
  eventKind,
  limitRangeKind,
  namespaceKind,
  nodeKind,
  persistentVolumeClaimKind,
  persistentVolumeKind,
  podKind,
  podTemplateKind,
  replicationControllerKind,
  resourceQuotaKind,
  secretKind,
  serviceAccountKind,
  leaseKind,
  clusterRoleBindingKind,
  clusterRoleKind,
  roleBindingKind,
  roleKind,
  selfSubjectReviewKind,
  deploymentKind,
  replicaSetKind,
  statefulSetKind,
  daemonSetKind,
  controllerRevisionKind,
  jobKind,
  cronJobKind,
  mutatingWebhookConfigurationKind,
  validatingWebhookConfigurationKind,
  validatingAdmissionPolicyKind,
  validatingAdmissionPolicyBindingKind,
  storageClassKind,
  csiDriverKind,
  csiNodeKind,
  csiStorageCapacityKind,
  volumeAttachmentKind,
  priorityClassKind,
  runtimeClassKind,
  podDisruptionBudgetKind,
  certificateSigningRequestKind,
  flowSchemaKind,
  priorityLevelConfigurationKind,
  // Stored versions before the versions served from them.
  horizontalPodAutoscalerKind,
  horizontalPodAutoscalerV1Kind,
  eventsV1EventKind,
  ingressKind,
  ingressClassKind,
  networkPolicyKind,
  endpointSliceKind,
  customResourceDefinitionKind,
  apiServiceKind,
  // Alpha and beta versions (off unless --runtime-config enables them).
  validatingAdmissionPolicyV1beta1Kind,
  validatingAdmissionPolicyBindingV1beta1Kind,
  mutatingAdmissionPolicyKind,
  mutatingAdmissionPolicyBindingKind,
  leaseCandidateKind,
  volumeAttributesClassKind,
  volumeAttributesClassV1alpha1Kind,
  clusterTrustBundleKind,
  deviceClassKind,
  resourceClaimKind,
  resourceClaimTemplateKind,
  resourceSliceKind,
  deviceClassV1alpha3Kind,
  resourceClaimV1alpha3Kind,
  resourceClaimTemplateV1alpha3Kind,
  resourceSliceV1alpha3Kind,
];

/** Per-server services some built-in kinds need; a kind whose service is absent is left out. */
export interface BuiltinKindServices {
  /** Serves `serviceaccounts/token` (TokenRequest). */
  tokenRequests?: TokenRequestDeps;
  /** Answers TokenReview. */
  tokenReviewer?: Authenticator;
  /** Allocates ClusterIPs and NodePorts: serves Services. */
  serviceAllocator?: ServiceAllocator;
  /** The pod store (registered later): serves `bindings` and `pods/binding`. */
  pods?: () => Store;
  /** The PodDisruptionBudget store (with `pods`): serves `pods/eviction`. */
  budgets?: () => Store;
  /** Health checks reported as ComponentStatuses, by component name. */
  components?: Record<string, HealthCheck>;
}

/** The pod subresources built from services: `binding`, and `eviction` when budgets are served. */
function podSubresources(services: BuiltinKindServices): SubresourceDef[] {
  const { pods, budgets } = services;
  if (!pods) return [];
  const subs = [podBindingSubresource(pods)];
  if (budgets) subs.push(podEvictionSubresource({ pods, budgets }));
  return subs;
}

/** BUILTIN_KINDS plus the kinds (and subresources) built from per-server services. */
export function builtinKinds(services: BuiltinKindServices = {}): KindDef[] {
  const pods = services.pods;
  const kinds = BUILTIN_KINDS.map((k) =>
    k === serviceAccountKind && services.tokenRequests
      ? serviceAccountKindWithToken(services.tokenRequests)
      : k === podKind && pods
      ? { ...k, subresources: [...k.subresources ?? [], ...podSubresources(services)] }
      : k
  );
  if (pods) kinds.push(bindingKind(pods));
  if (services.components) kinds.push(componentStatusKind(services.components));
  if (services.tokenReviewer) kinds.push(tokenReviewKind(services.tokenReviewer));
  if (services.serviceAllocator) kinds.push(serviceKind(services.serviceAllocator));
  return kinds;
}
