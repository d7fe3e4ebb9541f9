/**
 * Message descriptors of admissionregistration.k8s.io/v1beta1 (k8s.io/api/admissionregistration/v1beta1), Kubernetes 1.32.
 *
 * Field numbers, wire types and JSON names are the facts of the upstream API types; the table format
 * is ours (see {@link MessageTable}).
 *
 * @module
 */
import type { MessageTable } from "../message_descriptor.ts";

/** Messages of admissionregistration.k8s.io/v1beta1 (k8s.io/api/admissionregistration/v1beta1). */
export const admissionregistrationV1beta1Messages: MessageTable = {
  "admissionregistration.v1beta1.AuditAnnotation": [
    [1, "key", "string", 1],
    [2, "valueExpression", "string", 1],
  ],
  "admissionregistration.v1beta1.ExpressionWarning": [
    [2, "fieldRef", "string", 1],
    [3, "warning", "string", 1],
  ],
  "admissionregistration.v1beta1.MatchCondition": [
    [1, "name", "string", 1],
    [2, "expression", "string", 1],
  ],
  "admissionregistration.v1beta1.MatchResources": [
    [1, "namespaceSelector", "meta.v1.LabelSelector"],
    [2, "objectSelector", "meta.v1.LabelSelector"],
    [3, "resourceRules", "[]admissionregistration.v1beta1.NamedRuleWithOperations"],
    [4, "excludeResourceRules", "[]admissionregistration.v1beta1.NamedRuleWithOperations"],
    [7, "matchPolicy", "string", 1],
  ],
  "admissionregistration.v1beta1.MutatingWebhook": [
    [1, "name", "string", 1],
    [2, "clientConfig", "admissionregistration.v1beta1.WebhookClientConfig"],
    [3, "rules", "[]admissionregistration.v1.RuleWithOperations"],
    [4, "failurePolicy", "string", 1],
    [9, "matchPolicy", "string", 1],
    [5, "namespaceSelector", "meta.v1.LabelSelector"],
    [11, "objectSelector", "meta.v1.LabelSelector"],
    [6, "sideEffects", "string", 1],
    [7, "timeoutSeconds", "int32", 1],
    [8, "admissionReviewVersions", "[]string"],
    [10, "reinvocationPolicy", "string", 1],
    [12, "matchConditions", "[]admissionregistration.v1beta1.MatchCondition"],
  ],
  "admissionregistration.v1beta1.MutatingWebhookConfiguration": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "webhooks", "[]admissionregistration.v1beta1.MutatingWebhook"],
  ],
  "admissionregistration.v1beta1.MutatingWebhookConfigurationList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]admissionregistration.v1beta1.MutatingWebhookConfiguration"],
  ],
  "admissionregistration.v1beta1.NamedRuleWithOperations": [
    [1, "resourceNames", "[]string"],
    [2, "ruleWithOperations", "admissionregistration.v1.RuleWithOperations", 2],
  ],
  "admissionregistration.v1beta1.ParamKind": [
    [1, "apiVersion", "string"],
    [2, "kind", "string"],
  ],
  "admissionregistration.v1beta1.ParamRef": [
    [1, "name", "string"],
    [2, "namespace", "string"],
    [3, "selector", "meta.v1.LabelSelector"],
    [4, "parameterNotFoundAction", "string", 1],
  ],
  "admissionregistration.v1beta1.ServiceReference": [
    [1, "namespace", "string", 1],
    [2, "name", "string", 1],
    [3, "path", "string", 1],
    [4, "port", "int32", 1],
  ],
  "admissionregistration.v1beta1.TypeChecking": [
    [1, "expressionWarnings", "[]admissionregistration.v1beta1.ExpressionWarning"],
  ],
  "admissionregistration.v1beta1.ValidatingAdmissionPolicy": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "spec", "admissionregistration.v1beta1.ValidatingAdmissionPolicySpec"],
    [3, "status", "admissionregistration.v1beta1.ValidatingAdmissionPolicyStatus"],
  ],
  "admissionregistration.v1beta1.ValidatingAdmissionPolicyBinding": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "spec", "admissionregistration.v1beta1.ValidatingAdmissionPolicyBindingSpec"],
  ],
  "admissionregistration.v1beta1.ValidatingAdmissionPolicyBindingList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]admissionregistration.v1beta1.ValidatingAdmissionPolicyBinding"],
  ],
  "admissionregistration.v1beta1.ValidatingAdmissionPolicyBindingSpec": [
    [1, "policyName", "string"],
    [2, "paramRef", "admissionregistration.v1beta1.ParamRef"],
    [3, "matchResources", "admissionregistration.v1beta1.MatchResources"],
    [4, "validationActions", "[]string"],
  ],
  "admissionregistration.v1beta1.ValidatingAdmissionPolicyList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]admissionregistration.v1beta1.ValidatingAdmissionPolicy"],
  ],
  "admissionregistration.v1beta1.ValidatingAdmissionPolicySpec": [
    [1, "paramKind", "admissionregistration.v1beta1.ParamKind"],
    [2, "matchConstraints", "admissionregistration.v1beta1.MatchResources"],
    [3, "validations", "[]admissionregistration.v1beta1.Validation"],
    [4, "failurePolicy", "string", 1],
    [5, "auditAnnotations", "[]admissionregistration.v1beta1.AuditAnnotation"],
    [6, "matchConditions", "[]admissionregistration.v1beta1.MatchCondition"],
    [7, "variables", "[]admissionregistration.v1beta1.Variable"],
  ],
  "admissionregistration.v1beta1.ValidatingAdmissionPolicyStatus": [
    [1, "observedGeneration", "int64"],
    [2, "typeChecking", "admissionregistration.v1beta1.TypeChecking"],
    [3, "conditions", "[]meta.v1.Condition"],
  ],
  "admissionregistration.v1beta1.ValidatingWebhook": [
    [1, "name", "string", 1],
    [2, "clientConfig", "admissionregistration.v1beta1.WebhookClientConfig"],
    [3, "rules", "[]admissionregistration.v1.RuleWithOperations"],
    [4, "failurePolicy", "string", 1],
    [9, "matchPolicy", "string", 1],
    [5, "namespaceSelector", "meta.v1.LabelSelector"],
    [10, "objectSelector", "meta.v1.LabelSelector"],
    [6, "sideEffects", "string", 1],
    [7, "timeoutSeconds", "int32", 1],
    [8, "admissionReviewVersions", "[]string"],
    [11, "matchConditions", "[]admissionregistration.v1beta1.MatchCondition"],
  ],
  "admissionregistration.v1beta1.ValidatingWebhookConfiguration": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "webhooks", "[]admissionregistration.v1beta1.ValidatingWebhook"],
  ],
  "admissionregistration.v1beta1.ValidatingWebhookConfigurationList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]admissionregistration.v1beta1.ValidatingWebhookConfiguration"],
  ],
  "admissionregistration.v1beta1.Validation": [
    [1, "expression", "string", 1],
    [2, "message", "string"],
    [3, "reason", "string", 1],
    [4, "messageExpression", "string"],
  ],
  "admissionregistration.v1beta1.Variable": [
    [1, "name", "string", 1],
    [2, "expression", "string", 1],
  ],
  "admissionregistration.v1beta1.WebhookClientConfig": [
    [3, "url", "string", 1],
    [1, "service", "admissionregistration.v1beta1.ServiceReference"],
    [2, "caBundle", "bytes"],
  ],
};
