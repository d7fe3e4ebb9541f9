/**
 * The Protobuf tables of the alpha and beta group versions `--runtime-config` enables
 * (k8s.io/api v0.32): structure, chosen fields' numbers and JSON rules, kinds, and fixture
 * round trips, through the checks every built-in group gets.
 */
import { admissionregistrationV1alpha1Messages } from "../../../../shared/codec/protobuf/schema/admissionregistration_v1alpha1.ts";
import { admissionregistrationV1beta1Messages } from "../../../../shared/codec/protobuf/schema/admissionregistration_v1beta1.ts";
import { certificatesV1alpha1Messages } from "../../../../shared/codec/protobuf/schema/certificates_v1alpha1.ts";
import { coordinationV1alpha2Messages } from "../../../../shared/codec/protobuf/schema/coordination_v1alpha2.ts";
import { resourceV1alpha3Messages } from "../../../../shared/codec/protobuf/schema/resource_v1alpha3.ts";
import { resourceV1beta1Messages } from "../../../../shared/codec/protobuf/schema/resource_v1beta1.ts";
import { storageV1alpha1Messages } from "../../../../shared/codec/protobuf/schema/storage_v1alpha1.ts";
import { storageV1beta1Messages } from "../../../../shared/codec/protobuf/schema/storage_v1beta1.ts";
import { type FieldCase, groupTableChecks } from "./_group_table_checks.ts";

const POLICY_KINDS = [
  "ValidatingAdmissionPolicy",
  "ValidatingAdmissionPolicyList",
  "ValidatingAdmissionPolicyBinding",
  "ValidatingAdmissionPolicyBindingList",
];
const RESOURCE_KINDS = [
  "DeviceClass",
  "DeviceClassList",
  "ResourceClaim",
  "ResourceClaimList",
  "ResourceClaimTemplate",
  "ResourceClaimTemplateList",
  "ResourceSlice",
  "ResourceSliceList",
];
const COMMON = ["Status", "DeleteOptions"];

// [message, json, number, keepZero], read from each package's generated.proto and types.go.
const RESOURCE_FIELDS = (v: string): FieldCase[] => [
  [`resource.${v}.ResourcePool`, "generation", 2, true],
  [`resource.${v}.ResourcePool`, "resourceSliceCount", 3, true],
  [`resource.${v}.DeviceRequest`, "count", 5, false],
  [`resource.${v}.DeviceRequest`, "adminAccess", 6, true],
  [`resource.${v}.ResourceSliceSpec`, "allNodes", 5, false],
  [`resource.${v}.DeviceAttribute`, "bool", 3, true],
  [`resource.${v}.BasicDevice`, "capacity", 2, false],
  [`resource.${v}.ResourceClaimStatus`, "devices", 4, false],
];

groupTableChecks({
  messagesName: "resourceV1beta1Messages",
  messages: resourceV1beta1Messages,
  gv: "resource.k8s.io/v1beta1",
  fields: [...RESOURCE_FIELDS("v1beta1"), ["resource.v1beta1.DeviceCapacity", "value", 1, false]],
  kinds: [...RESOURCE_KINDS, ...COMMON],
  fixture: "resource_v1beta1.json",
});

groupTableChecks({
  messagesName: "resourceV1alpha3Messages",
  messages: resourceV1alpha3Messages,
  gv: "resource.k8s.io/v1alpha3",
  fields: RESOURCE_FIELDS("v1alpha3"),
  kinds: [...RESOURCE_KINDS, ...COMMON],
  fixture: "resource_v1alpha3.json",
});

groupTableChecks({
  messagesName: "admissionregistrationV1beta1Messages",
  messages: admissionregistrationV1beta1Messages,
  gv: "admissionregistration.k8s.io/v1beta1",
  fields: [
    ["admissionregistration.v1beta1.ParamRef", "parameterNotFoundAction", 4, true],
    ["admissionregistration.v1beta1.ValidatingAdmissionPolicySpec", "failurePolicy", 4, true],
    [
      "admissionregistration.v1beta1.ValidatingAdmissionPolicyStatus",
      "observedGeneration",
      1,
      false,
    ],
  ],
  kinds: [...POLICY_KINDS, ...COMMON],
  notRegistered: [["admissionregistration.k8s.io/v1beta1", "MutatingWebhookConfiguration"]],
  fixture: "admissionregistration_v1beta1.json",
});

groupTableChecks({
  messagesName: "admissionregistrationV1alpha1Messages",
  messages: admissionregistrationV1alpha1Messages,
  gv: "admissionregistration.k8s.io/v1alpha1",
  fields: [
    ["admissionregistration.v1alpha1.MutatingAdmissionPolicySpec", "failurePolicy", 5, true],
    ["admissionregistration.v1alpha1.MutatingAdmissionPolicySpec", "reinvocationPolicy", 7, false],
    ["admissionregistration.v1alpha1.Mutation", "patchType", 2, true],
    ["admissionregistration.v1alpha1.MatchCondition", "expression", 2, true],
  ],
  kinds: [
    "MutatingAdmissionPolicy",
    "MutatingAdmissionPolicyList",
    "MutatingAdmissionPolicyBinding",
    "MutatingAdmissionPolicyBindingList",
    ...COMMON,
  ],
  // kube 1.32 no longer serves the v1alpha1 validating policies (removed in 1.32).
  notRegistered: [["admissionregistration.k8s.io/v1alpha1", "ValidatingAdmissionPolicy"]],
  fixture: "admissionregistration_v1alpha1.json",
});

groupTableChecks({
  messagesName: "coordinationV1alpha2Messages",
  messages: coordinationV1alpha2Messages,
  gv: "coordination.k8s.io/v1alpha2",
  fields: [
    ["coordination.v1alpha2.LeaseCandidateSpec", "binaryVersion", 4, true],
    ["coordination.v1alpha2.LeaseCandidateSpec", "emulationVersion", 5, false],
    ["coordination.v1alpha2.LeaseCandidateSpec", "pingTime", 2, false],
  ],
  kinds: ["LeaseCandidate", "LeaseCandidateList", ...COMMON],
  fixture: "coordination_v1alpha2.json",
});

for (
  const [v, messages] of [["v1beta1", storageV1beta1Messages], [
    "v1alpha1",
    storageV1alpha1Messages,
  ]] as const
) {
  groupTableChecks({
    messagesName: `storage${v[0].toUpperCase()}${v.slice(1)}Messages`,
    messages,
    gv: `storage.k8s.io/${v}`,
    fields: [
      [`storage.${v}.VolumeAttributesClass`, "driverName", 2, true],
      [`storage.${v}.VolumeAttributesClass`, "parameters", 3, false],
    ],
    kinds: ["VolumeAttributesClass", "VolumeAttributesClassList", ...COMMON],
    notRegistered: [[`storage.k8s.io/${v}`, "StorageClass"]],
    fixture: `storage_${v}.json`,
  });
}

groupTableChecks({
  messagesName: "certificatesV1alpha1Messages",
  messages: certificatesV1alpha1Messages,
  gv: "certificates.k8s.io/v1alpha1",
  fields: [
    ["certificates.v1alpha1.ClusterTrustBundleSpec", "signerName", 1, false],
    ["certificates.v1alpha1.ClusterTrustBundleSpec", "trustBundle", 2, true],
  ],
  kinds: ["ClusterTrustBundle", "ClusterTrustBundleList", ...COMMON],
  fixture: "certificates_v1alpha1.json",
});
