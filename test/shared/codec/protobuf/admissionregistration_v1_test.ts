import { admissionregistrationV1Messages } from "../../../../shared/codec/protobuf/schema/admissionregistration_v1.ts";
import { groupTableChecks } from "./_group_table_checks.ts";

groupTableChecks({
  messagesName: "admissionregistrationV1Messages",
  messages: admissionregistrationV1Messages,
  gv: "admissionregistration.k8s.io/v1",
  // [message, json, number, keepZero], read from admissionregistration/v1 generated.proto and
  // types.go (v0.32).
  fields: [
    ["admissionregistration.v1.ValidatingWebhookConfiguration", "webhooks", 2, false],
    ["admissionregistration.v1.ValidatingWebhook", "objectSelector", 10, false],
    ["admissionregistration.v1.ValidatingWebhook", "matchConditions", 11, false],
    ["admissionregistration.v1.MutatingWebhook", "objectSelector", 11, false],
    ["admissionregistration.v1.MutatingWebhook", "reinvocationPolicy", 10, true],
    ["admissionregistration.v1.MutatingWebhook", "sideEffects", 6, true],
    ["admissionregistration.v1.MutatingWebhook", "timeoutSeconds", 7, true],
    ["admissionregistration.v1.WebhookClientConfig", "url", 3, true],
    ["admissionregistration.v1.ServiceReference", "port", 4, true],
    ["admissionregistration.v1.MatchResources", "matchPolicy", 7, true],
    ["admissionregistration.v1.ValidatingAdmissionPolicySpec", "variables", 7, false],
    [
      "admissionregistration.v1.ValidatingAdmissionPolicyBindingSpec",
      "validationActions",
      4,
      false,
    ],
    ["admissionregistration.v1.ParamRef", "parameterNotFoundAction", 4, true],
    ["admissionregistration.v1.ParamRef", "name", 1, false],
    ["admissionregistration.v1.ExpressionWarning", "fieldRef", 2, true],
    ["admissionregistration.v1.Validation", "expression", 1, true],
    ["admissionregistration.v1.Validation", "message", 2, false],
  ],
  kinds: [
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyList",
    "ValidatingAdmissionPolicyBinding",
    "ValidatingAdmissionPolicyBindingList",
    "ValidatingWebhookConfiguration",
    "ValidatingWebhookConfigurationList",
    "MutatingWebhookConfiguration",
    "MutatingWebhookConfigurationList",
    "Status",
    "DeleteOptions",
  ],
  fixture: "admissionregistration_v1.json",
});
