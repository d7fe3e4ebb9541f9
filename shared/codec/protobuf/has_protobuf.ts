/**
 * hasProtobuf and protobufMessageName: which apiVersion/kind pairs have a Protobuf encoding, and
 * which message carries each.
 *
 * @module
 */

/** The kinds registered in each group version, as Kubernetes 1.32 registers them. */
const KINDS: Readonly<Record<string, { pkg: string; kinds: readonly string[] }>> = {
  "v1": {
    pkg: "core.v1",
    kinds: [
      "Pod",
      "PodList",
      "PodStatusResult",
      "PodTemplate",
      "PodTemplateList",
      "ReplicationController",
      "ReplicationControllerList",
      "Service",
      "ServiceProxyOptions",
      "ServiceList",
      "Endpoints",
      "EndpointsList",
      "Node",
      "NodeList",
      "NodeProxyOptions",
      "Binding",
      "Event",
      "EventList",
      "LimitRange",
      "LimitRangeList",
      "ResourceQuota",
      "ResourceQuotaList",
      "Namespace",
      "NamespaceList",
      "Secret",
      "SecretList",
      "ServiceAccount",
      "ServiceAccountList",
      "PersistentVolume",
      "PersistentVolumeList",
      "PersistentVolumeClaim",
      "PersistentVolumeClaimList",
      "PodAttachOptions",
      "PodLogOptions",
      "PodExecOptions",
      "PodPortForwardOptions",
      "PodProxyOptions",
      "ComponentStatus",
      "ComponentStatusList",
      "SerializedReference",
      "RangeAllocation",
      "ConfigMap",
      "ConfigMapList",
    ],
  },
  "coordination.k8s.io/v1": { pkg: "coordination.v1", kinds: ["Lease", "LeaseList"] },
  "authentication.k8s.io/v1": {
    pkg: "authentication.v1",
    kinds: ["TokenReview", "TokenRequest", "SelfSubjectReview"],
  },
  "authorization.k8s.io/v1": {
    pkg: "authorization.v1",
    kinds: [
      "SelfSubjectRulesReview",
      "SelfSubjectAccessReview",
      "SubjectAccessReview",
      "LocalSubjectAccessReview",
    ],
  },
  "events.k8s.io/v1": { pkg: "events.v1", kinds: ["Event", "EventList"] },
  "rbac.authorization.k8s.io/v1": {
    pkg: "rbac.v1",
    kinds: [
      "Role",
      "RoleBinding",
      "RoleBindingList",
      "RoleList",
      "ClusterRole",
      "ClusterRoleBinding",
      "ClusterRoleBindingList",
      "ClusterRoleList",
    ],
  },
  "apps/v1": {
    pkg: "apps.v1",
    kinds: [
      "Deployment",
      "DeploymentList",
      "StatefulSet",
      "StatefulSetList",
      "DaemonSet",
      "DaemonSetList",
      "ReplicaSet",
      "ReplicaSetList",
      "ControllerRevision",
      "ControllerRevisionList",
    ],
  },
  "batch/v1": { pkg: "batch.v1", kinds: ["Job", "JobList", "CronJob", "CronJobList"] },
  "autoscaling/v1": {
    pkg: "autoscaling.v1",
    kinds: ["Scale", "HorizontalPodAutoscaler", "HorizontalPodAutoscalerList"],
  },
  "autoscaling/v2": {
    pkg: "autoscaling.v2",
    kinds: ["HorizontalPodAutoscaler", "HorizontalPodAutoscalerList"],
  },
  "policy/v1": {
    pkg: "policy.v1",
    kinds: ["PodDisruptionBudget", "PodDisruptionBudgetList", "Eviction"],
  },
  "networking.k8s.io/v1": {
    pkg: "networking.v1",
    kinds: [
      "Ingress",
      "IngressList",
      "IngressClass",
      "IngressClassList",
      "NetworkPolicy",
      "NetworkPolicyList",
    ],
  },
  "discovery.k8s.io/v1": { pkg: "discovery.v1", kinds: ["EndpointSlice", "EndpointSliceList"] },
  "storage.k8s.io/v1": {
    pkg: "storage.v1",
    kinds: [
      "StorageClass",
      "StorageClassList",
      "VolumeAttachment",
      "VolumeAttachmentList",
      "CSINode",
      "CSINodeList",
      "CSIDriver",
      "CSIDriverList",
      "CSIStorageCapacity",
      "CSIStorageCapacityList",
    ],
  },
  "admissionregistration.k8s.io/v1": {
    pkg: "admissionregistration.v1",
    kinds: [
      "ValidatingAdmissionPolicy",
      "ValidatingAdmissionPolicyList",
      "ValidatingAdmissionPolicyBinding",
      "ValidatingAdmissionPolicyBindingList",
      "ValidatingWebhookConfiguration",
      "ValidatingWebhookConfigurationList",
      "MutatingWebhookConfiguration",
      "MutatingWebhookConfigurationList",
    ],
  },
  "admissionregistration.k8s.io/v1alpha1": {
    pkg: "admissionregistration.v1alpha1",
    kinds: [
      "MutatingAdmissionPolicy",
      "MutatingAdmissionPolicyList",
      "MutatingAdmissionPolicyBinding",
      "MutatingAdmissionPolicyBindingList",
    ],
  },
  "admissionregistration.k8s.io/v1beta1": {
    pkg: "admissionregistration.v1beta1",
    kinds: [
      "ValidatingAdmissionPolicy",
      "ValidatingAdmissionPolicyList",
      "ValidatingAdmissionPolicyBinding",
      "ValidatingAdmissionPolicyBindingList",
    ],
  },
  "coordination.k8s.io/v1alpha2": {
    pkg: "coordination.v1alpha2",
    kinds: [
      "LeaseCandidate",
      "LeaseCandidateList",
    ],
  },
  "resource.k8s.io/v1alpha3": {
    pkg: "resource.v1alpha3",
    kinds: [
      "DeviceClass",
      "DeviceClassList",
      "ResourceClaim",
      "ResourceClaimList",
      "ResourceClaimTemplate",
      "ResourceClaimTemplateList",
      "ResourceSlice",
      "ResourceSliceList",
    ],
  },
  "resource.k8s.io/v1beta1": {
    pkg: "resource.v1beta1",
    kinds: [
      "DeviceClass",
      "DeviceClassList",
      "ResourceClaim",
      "ResourceClaimList",
      "ResourceClaimTemplate",
      "ResourceClaimTemplateList",
      "ResourceSlice",
      "ResourceSliceList",
    ],
  },
  "storage.k8s.io/v1alpha1": {
    pkg: "storage.v1alpha1",
    kinds: [
      "VolumeAttributesClass",
      "VolumeAttributesClassList",
    ],
  },
  "storage.k8s.io/v1beta1": {
    pkg: "storage.v1beta1",
    kinds: [
      "VolumeAttributesClass",
      "VolumeAttributesClassList",
    ],
  },
  "certificates.k8s.io/v1alpha1": {
    pkg: "certificates.v1alpha1",
    kinds: [
      "ClusterTrustBundle",
      "ClusterTrustBundleList",
    ],
  },
  "scheduling.k8s.io/v1": { pkg: "scheduling.v1", kinds: ["PriorityClass", "PriorityClassList"] },
  "node.k8s.io/v1": { pkg: "node.v1", kinds: ["RuntimeClass", "RuntimeClassList"] },
  "certificates.k8s.io/v1": {
    pkg: "certificates.v1",
    kinds: ["CertificateSigningRequest", "CertificateSigningRequestList"],
  },
  "flowcontrol.apiserver.k8s.io/v1": {
    pkg: "flowcontrol.v1",
    kinds: [
      "FlowSchema",
      "FlowSchemaList",
      "PriorityLevelConfiguration",
      "PriorityLevelConfigurationList",
    ],
  },
  "apiextensions.k8s.io/v1": {
    pkg: "apiextensions.v1",
    kinds: ["CustomResourceDefinition", "CustomResourceDefinitionList", "ConversionReview"],
  },
  "apiregistration.k8s.io/v1": {
    pkg: "apiregistration.v1",
    kinds: ["APIService", "APIServiceList"],
  },
  "metrics.k8s.io/v1beta1": {
    pkg: "metrics.v1beta1",
    kinds: ["NodeMetrics", "NodeMetricsList", "PodMetrics", "PodMetricsList"],
  },
  "meta.k8s.io/v1": {
    pkg: "meta.v1",
    kinds: ["PartialObjectMetadata", "PartialObjectMetadataList"],
  },
};

/** meta/v1 kinds registered in every group version (Status is unversioned, served as v1). */
const COMMON_KINDS: ReadonlySet<string> = new Set([
  "Status",
  "WatchEvent",
  "DeleteOptions",
  "ListOptions",
  "GetOptions",
  "CreateOptions",
  "UpdateOptions",
  "PatchOptions",
]);

const index = new Map<string, string>();
for (const [apiVersion, { pkg, kinds }] of Object.entries(KINDS)) {
  for (const kind of kinds) index.set(`${apiVersion}\n${kind}`, `${pkg}.${kind}`);
  for (const kind of COMMON_KINDS) index.set(`${apiVersion}\n${kind}`, `meta.v1.${kind}`);
}

/**
 * Returns the qualified Protobuf message name (for example `core.v1.Pod`) of `apiVersion`/`kind`,
 * or undefined when the kind has no Protobuf encoding (custom resources, unknown kinds).
 */
export function protobufMessageName(apiVersion: string, kind: string): string | undefined {
  return index.get(`${apiVersion}\n${kind}`);
}

/**
 * True when `apiVersion`/`kind` has a Protobuf encoding, so that the HTTP layer can answer 406
 * (Protobuf the only acceptable response type) or 415 (Protobuf request body) for the others.
 */
export function hasProtobuf(apiVersion: string, kind: string): boolean {
  return index.has(`${apiVersion}\n${kind}`);
}
