/**
 * Message descriptors of admissionregistration.k8s.io/v1alpha1 (k8s.io/api/admissionregistration/v1alpha1), Kubernetes 1.32.
 *
 * Field numbers, wire types and JSON names are the facts of the upstream API types; the table format
 * is ours (see {@link MessageTable}).
 *
 * @module
 */
import type { MessageTable } from "../message_descriptor.ts";

/** Messages of admissionregistration.k8s.io/v1alpha1 (k8s.io/api/admissionregistration/v1alpha1). */
export const admissionregistrationV1alpha1Messages: MessageTable = {
  "admissionregistration.v1alpha1.ApplyConfiguration": [
    [1, "expression", "string"],
  ],
  "admissionregistration.v1alpha1.AuditAnnotation": [
    [1, "key", "string", 1],
    [2, "valueExpression", "string", 1],
  ],
  "admissionregistration.v1alpha1.ExpressionWarning": [
    [2, "fieldRef", "string", 1],
    [3, "warning", "string", 1],
  ],
  "admissionregistration.v1alpha1.JSONPatch": [
    [1, "expression", "string"],
  ],
  "admissionregistration.v1alpha1.MatchCondition": [
    [1, "name", "string", 1],
    [2, "expression", "string", 1],
  ],
  "admissionregistration.v1alpha1.MatchResources": [
    [1, "namespaceSelector", "meta.v1.LabelSelector"],
    [2, "objectSelector", "meta.v1.LabelSelector"],
    [3, "resourceRules", "[]admissionregistration.v1alpha1.NamedRuleWithOperations"],
    [4, "excludeResourceRules", "[]admissionregistration.v1alpha1.NamedRuleWithOperations"],
    [7, "matchPolicy", "string", 1],
  ],
  "admissionregistration.v1alpha1.MutatingAdmissionPolicy": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "spec", "admissionregistration.v1alpha1.MutatingAdmissionPolicySpec"],
  ],
  "admissionregistration.v1alpha1.MutatingAdmissionPolicyBinding": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "spec", "admissionregistration.v1alpha1.MutatingAdmissionPolicyBindingSpec"],
  ],
  "admissionregistration.v1alpha1.MutatingAdmissionPolicyBindingList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]admissionregistration.v1alpha1.MutatingAdmissionPolicyBinding"],
  ],
  "admissionregistration.v1alpha1.MutatingAdmissionPolicyBindingSpec": [
    [1, "policyName", "string"],
    [2, "paramRef", "admissionregistration.v1alpha1.ParamRef"],
    [3, "matchResources", "admissionregistration.v1alpha1.MatchResources"],
  ],
  "admissionregistration.v1alpha1.MutatingAdmissionPolicyList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]admissionregistration.v1alpha1.MutatingAdmissionPolicy"],
  ],
  "admissionregistration.v1alpha1.MutatingAdmissionPolicySpec": [
    [1, "paramKind", "admissionregistration.v1alpha1.ParamKind"],
    [2, "matchConstraints", "admissionregistration.v1alpha1.MatchResources"],
    [3, "variables", "[]admissionregistration.v1alpha1.Variable"],
    [4, "mutations", "[]admissionregistration.v1alpha1.Mutation"],
    [5, "failurePolicy", "string", 1],
    [6, "matchConditions", "[]admissionregistration.v1alpha1.MatchCondition"],
    [7, "reinvocationPolicy", "string"],
  ],
  "admissionregistration.v1alpha1.Mutation": [
    [2, "patchType", "string", 1],
    [3, "applyConfiguration", "admissionregistration.v1alpha1.ApplyConfiguration"],
    [4, "jsonPatch", "admissionregistration.v1alpha1.JSONPatch"],
  ],
  "admissionregistration.v1alpha1.NamedRuleWithOperations": [
    [1, "resourceNames", "[]string"],
    [2, "ruleWithOperations", "admissionregistration.v1.RuleWithOperations", 2],
  ],
  "admissionregistration.v1alpha1.ParamKind": [
    [1, "apiVersion", "string"],
    [2, "kind", "string"],
  ],
  "admissionregistration.v1alpha1.ParamRef": [
    [1, "name", "string"],
    [2, "namespace", "string"],
    [3, "selector", "meta.v1.LabelSelector"],
    [4, "parameterNotFoundAction", "string", 1],
  ],
  "admissionregistration.v1alpha1.TypeChecking": [
    [1, "expressionWarnings", "[]admissionregistration.v1alpha1.ExpressionWarning"],
  ],
  "admissionregistration.v1alpha1.ValidatingAdmissionPolicy": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "spec", "admissionregistration.v1alpha1.ValidatingAdmissionPolicySpec"],
    [3, "status", "admissionregistration.v1alpha1.ValidatingAdmissionPolicyStatus"],
  ],
  "admissionregistration.v1alpha1.ValidatingAdmissionPolicyBinding": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "spec", "admissionregistration.v1alpha1.ValidatingAdmissionPolicyBindingSpec"],
  ],
  "admissionregistration.v1alpha1.ValidatingAdmissionPolicyBindingList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]admissionregistration.v1alpha1.ValidatingAdmissionPolicyBinding"],
  ],
  "admissionregistration.v1alpha1.ValidatingAdmissionPolicyBindingSpec": [
    [1, "policyName", "string"],
    [2, "paramRef", "admissionregistration.v1alpha1.ParamRef"],
    [3, "matchResources", "admissionregistration.v1alpha1.MatchResources"],
    [4, "validationActions", "[]string"],
  ],
  "admissionregistration.v1alpha1.ValidatingAdmissionPolicyList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]admissionregistration.v1alpha1.ValidatingAdmissionPolicy"],
  ],
  "admissionregistration.v1alpha1.ValidatingAdmissionPolicySpec": [
    [1, "paramKind", "admissionregistration.v1alpha1.ParamKind"],
    [2, "matchConstraints", "admissionregistration.v1alpha1.MatchResources"],
    [3, "validations", "[]admissionregistration.v1alpha1.Validation"],
    [4, "failurePolicy", "string", 1],
    [5, "auditAnnotations", "[]admissionregistration.v1alpha1.AuditAnnotation"],
    [6, "matchConditions", "[]admissionregistration.v1alpha1.MatchCondition"],
    [7, "variables", "[]admissionregistration.v1alpha1.Variable"],
  ],
  "admissionregistration.v1alpha1.ValidatingAdmissionPolicyStatus": [
    [1, "observedGeneration", "int64"],
    [2, "typeChecking", "admissionregistration.v1alpha1.TypeChecking"],
    [3, "conditions", "[]meta.v1.Condition"],
  ],
  "admissionregistration.v1alpha1.Validation": [
    [1, "expression", "string", 1],
    [2, "message", "string"],
    [3, "reason", "string", 1],
    [4, "messageExpression", "string"],
  ],
  "admissionregistration.v1alpha1.Variable": [
    [1, "name", "string", 1],
    [2, "expression", "string", 1],
  ],
};
