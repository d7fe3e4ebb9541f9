/**
 * The schema declaration of admissionregistration.k8s.io/v1 (MutatingWebhookConfiguration,
 * ValidatingWebhookConfiguration, ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding):
 * defaults and merge markers as Kubernetes 1.32's OpenAPI has them. Required fields and allowed
 * values are checked by the kinds' validation, with Kubernetes' messages. Field names and types
 * come from the admissionregistration/v1 descriptors.
 *
 * @module
 */
import { ATOMIC_LIST, type GroupSchema, mergeList } from "../../schema/group_schema.ts";

const FAILURE_POLICY = {
  default: "Fail",
  description: "What happens when the call or the evaluation fails: Ignore or Fail (default).",
};
const MATCH_POLICY = {
  default: "Equivalent",
  description: "Exact, or Equivalent (default): also match a request through another version.",
};
const SELECTOR_DEFAULT = { default: {} };

/** The fields a validating and a mutating webhook share. */
const WEBHOOK_FIELDS = {
  name: { description: "The webhook's fully qualified name, e.g. imagepolicy.kubernetes.io." },
  clientConfig: { description: "How to reach the webhook: a URL or a Service." },
  rules: { ...ATOMIC_LIST, description: "The operations and resources the webhook sees." },
  failurePolicy: FAILURE_POLICY,
  matchPolicy: MATCH_POLICY,
  namespaceSelector: SELECTOR_DEFAULT,
  objectSelector: SELECTOR_DEFAULT,
  sideEffects: { description: "None or NoneOnDryRun: whether calls have side effects." },
  timeoutSeconds: { default: 10, description: "The call's timeout, 1 to 30 seconds." },
  admissionReviewVersions: {
    ...ATOMIC_LIST,
    description: "AdmissionReview versions the webhook accepts, preferred first (v1, v1beta1).",
  },
  matchConditions: {
    ...mergeList("name"),
    description: "CEL conditions that must all hold for the webhook to be called (at most 64).",
  },
};

/** admissionregistration.k8s.io/v1. */
export const admissionregistrationV1Schema: GroupSchema = {
  package: "admissionregistration.v1",
  group: "admissionregistration.k8s.io",
  version: "v1",
  openApiPrefix: "io.k8s.api.admissionregistration.v1",
  kinds: [
    "MutatingWebhookConfiguration",
    "MutatingWebhookConfigurationList",
    "ValidatingWebhookConfiguration",
    "ValidatingWebhookConfigurationList",
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyList",
    "ValidatingAdmissionPolicyBinding",
    "ValidatingAdmissionPolicyBindingList",
  ],
  types: {
    MutatingWebhookConfiguration: {
      description: "Admission webhooks that may change an object before it is stored.",
      fields: { webhooks: { ...mergeList("name"), description: "The webhooks." } },
    },
    MutatingWebhookConfigurationList: { required: ["items"] },
    ValidatingWebhookConfiguration: {
      description: "Admission webhooks that may reject an object without changing it.",
      fields: { webhooks: { ...mergeList("name"), description: "The webhooks." } },
    },
    ValidatingWebhookConfigurationList: { required: ["items"] },
    MutatingWebhook: {
      fields: {
        ...WEBHOOK_FIELDS,
        reinvocationPolicy: {
          default: "Never",
          description: "Never (default) or IfNeeded: call again after later mutations.",
        },
      },
    },
    ValidatingWebhook: { fields: WEBHOOK_FIELDS },
    WebhookClientConfig: {
      fields: {
        url: { description: "An https URL without user, query or fragment." },
        service: { description: "A Service in the cluster." },
        caBundle: { description: "PEM CA bundle to verify the webhook's serving certificate." },
      },
    },
    ServiceReference: {
      fields: { port: { default: 443, description: "The Service port, 443 by default." } },
    },
    RuleWithOperations: {
      fields: {
        operations: { ...ATOMIC_LIST, description: "CREATE, UPDATE, DELETE, CONNECT or *." },
      },
    },
    Rule: {
      fields: {
        apiGroups: ATOMIC_LIST,
        apiVersions: ATOMIC_LIST,
        resources: ATOMIC_LIST,
        scope: { default: "*", description: "Cluster, Namespaced or * (default)." },
      },
    },
    MatchCondition: {
      required: ["name", "expression"],
      fields: {
        name: { description: "A qualified name, unique in the list." },
        expression: { description: "A CEL expression evaluating to a bool." },
      },
    },
    ValidatingAdmissionPolicy: {
      description: "CEL validations applied to the requests its bindings select.",
    },
    ValidatingAdmissionPolicyList: { required: ["items"] },
    ValidatingAdmissionPolicySpec: {
      fields: {
        validations: ATOMIC_LIST,
        failurePolicy: FAILURE_POLICY,
        auditAnnotations: ATOMIC_LIST,
        matchConditions: mergeList("name"),
        variables: mergeList("name"),
      },
    },
    ValidatingAdmissionPolicyStatus: { fields: { conditions: mergeList("type") } },
    TypeChecking: { fields: { expressionWarnings: ATOMIC_LIST } },
    ParamKind: { structType: "atomic" },
    Variable: { structType: "atomic" },
    ParamRef: { structType: "atomic" },
    MatchResources: {
      structType: "atomic",
      fields: {
        namespaceSelector: SELECTOR_DEFAULT,
        objectSelector: SELECTOR_DEFAULT,
        resourceRules: ATOMIC_LIST,
        excludeResourceRules: ATOMIC_LIST,
        matchPolicy: MATCH_POLICY,
      },
    },
    NamedRuleWithOperations: {
      structType: "atomic",
      fields: { resourceNames: ATOMIC_LIST },
    },
    ValidatingAdmissionPolicyBinding: {
      description: "Binds a ValidatingAdmissionPolicy to parameters and resources.",
    },
    ValidatingAdmissionPolicyBindingList: { required: ["items"] },
    ValidatingAdmissionPolicyBindingSpec: {
      fields: {
        policyName: { description: "The ValidatingAdmissionPolicy bound." },
        validationActions: {
          listType: "set",
          description: "Deny, Warn and/or Audit (not both Deny and Warn).",
        },
      },
    },
  },
};
