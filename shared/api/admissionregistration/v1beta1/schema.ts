/**
 * The schema declaration of admissionregistration.k8s.io/v1beta1 as this server serves it
 * (ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding, off by default): the same
 * fields, defaults and merge markers as v1, whose declarations it shares.
 *
 * @module
 */
import type { GroupSchema, TypeOverlay } from "../../schema/group_schema.ts";
import { admissionregistrationV1Schema } from "../v1/schema.ts";

/** The v1 declarations of the admission policy types. */
export const POLICY_TYPE_OVERLAYS: Readonly<Record<string, TypeOverlay>> = Object.fromEntries(
  [
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyList",
    "ValidatingAdmissionPolicySpec",
    "ValidatingAdmissionPolicyStatus",
    "TypeChecking",
    "ParamKind",
    "Variable",
    "ParamRef",
    "MatchResources",
    "NamedRuleWithOperations",
    "MatchCondition",
    "ValidatingAdmissionPolicyBinding",
    "ValidatingAdmissionPolicyBindingList",
    "ValidatingAdmissionPolicyBindingSpec",
  ].map((name) => [name, admissionregistrationV1Schema.types[name]]),
);

/** The admission policy kinds of v1beta1. */
const POLICY_KINDS = [
  "ValidatingAdmissionPolicy",
  "ValidatingAdmissionPolicyList",
  "ValidatingAdmissionPolicyBinding",
  "ValidatingAdmissionPolicyBindingList",
] as const;

/** admissionregistration.k8s.io/v1beta1. */
export const admissionregistrationV1beta1Schema: GroupSchema = {
  package: "admissionregistration.v1beta1",
  group: "admissionregistration.k8s.io",
  version: "v1beta1",
  openApiPrefix: "io.k8s.api.admissionregistration.v1beta1",
  kinds: POLICY_KINDS,
  types: POLICY_TYPE_OVERLAYS,
};
