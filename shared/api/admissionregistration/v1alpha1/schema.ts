/**
 * The schema declaration of admissionregistration.k8s.io/v1alpha1 as kube 1.32 serves it (off
 * by default): MutatingAdmissionPolicy and MutatingAdmissionPolicyBinding, with v1's
 * declarations of the parts they share with the validating policies (whose v1alpha1 kube 1.32
 * no longer serves).
 *
 * @module
 */
import { ATOMIC_LIST, type GroupSchema, mergeList } from "../../schema/group_schema.ts";
import { POLICY_TYPE_OVERLAYS } from "../v1beta1/schema.ts";

/** admissionregistration.k8s.io/v1alpha1. */
export const admissionregistrationV1alpha1Schema: GroupSchema = {
  package: "admissionregistration.v1alpha1",
  group: "admissionregistration.k8s.io",
  version: "v1alpha1",
  openApiPrefix: "io.k8s.api.admissionregistration.v1alpha1",
  kinds: [
    "MutatingAdmissionPolicy",
    "MutatingAdmissionPolicyList",
    "MutatingAdmissionPolicyBinding",
    "MutatingAdmissionPolicyBindingList",
  ],
  types: {
    ...POLICY_TYPE_OVERLAYS,
    MutatingAdmissionPolicy: {
      description: "CEL mutations applied to the requests its bindings select.",
    },
    MutatingAdmissionPolicyList: { required: ["items"] },
    MutatingAdmissionPolicySpec: {
      fields: {
        variables: ATOMIC_LIST,
        mutations: {
          ...ATOMIC_LIST,
          description: "The mutations, applied in order (at least one).",
        },
        failurePolicy: {
          default: "Fail",
          description: "What happens when the evaluation fails: Ignore or Fail (default).",
        },
        matchConditions: mergeList("name"),
        reinvocationPolicy: {
          description: "Never or IfNeeded: apply again after later mutations.",
        },
      },
    },
    Mutation: {
      required: ["patchType"],
      fields: { patchType: { description: "ApplyConfiguration or JSONPatch." } },
    },
    ApplyConfiguration: {
      fields: { expression: { description: "A CEL expression building an apply configuration." } },
    },
    JSONPatch: {
      fields: { expression: { description: "A CEL expression building JSON patch operations." } },
    },
    MutatingAdmissionPolicyBinding: {
      description: "Binds a MutatingAdmissionPolicy to parameters and resources.",
    },
    MutatingAdmissionPolicyBindingList: { required: ["items"] },
    MutatingAdmissionPolicyBindingSpec: {
      fields: { policyName: { description: "The MutatingAdmissionPolicy bound." } },
    },
  },
};
