/**
 * Admission rules as Kubernetes matches them (k8s.io/apiserver/pkg/admission/plugin/webhook/
 * predicates/rules): a rule matches a request when its scope, operations, API groups, API
 * versions and resources all match. Resources are `res`, `*` (every resource, no
 * subresource), `*\/*` (everything), `res/*` (the resource and all its subresources),
 * `res/sub` and `*\/sub`.
 *
 * @module
 */

/** A rule of a webhook or an admission policy (`RuleWithOperations`). */
export interface AdmissionRule {
  /** `CREATE`, `UPDATE`, `DELETE`, `CONNECT` or `*`. */
  operations?: readonly string[];
  /** API groups (`""` is core), or `*`. */
  apiGroups?: readonly string[];
  /** API versions, or `*`. */
  apiVersions?: readonly string[];
  /** Resources as described in the module documentation. */
  resources?: readonly string[];
  /** `Cluster`, `Namespaced` or `*` (the default). */
  scope?: string;
}

/** A policy's rule with optional object names (`NamedRuleWithOperations`). */
export interface NamedAdmissionRule extends AdmissionRule {
  /** Object names the rule is limited to; empty or absent: every name. */
  resourceNames?: readonly string[];
}

/** A group, version and resource. */
export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

/** A group, version and kind. */
export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** What a rule looks at: the operation and the resource of a request. */
export interface RuleRequest {
  operation: string;
  resource: GroupVersionResource;
  subresource: string;
  /** `""` for cluster-scoped objects. */
  namespace: string;
}

function exactOrWildcard(items: readonly string[] | undefined, value: string): boolean {
  if (!items) return false;
  for (const it of items) if (it === "*" || it === value) return true;
  return false;
}

function isNamespaceResource(r: GroupVersionResource): boolean {
  return r.group === "" && r.version === "v1" && r.resource === "namespaces";
}

function scopeMatches(scope: string | undefined, req: RuleRequest): boolean {
  switch (scope) {
    case "Namespaced":
      // Namespace objects are cluster-scoped.
      return !isNamespaceResource(req.resource) && req.namespace !== "";
    case "Cluster":
      return isNamespaceResource(req.resource) || req.namespace === "";
    default:
      return true;
  }
}

function resourceMatches(resources: readonly string[] | undefined, req: RuleRequest): boolean {
  if (!resources) return false;
  const opRes = req.resource.resource, opSub = req.subresource;
  for (const entry of resources) {
    const slash = entry.indexOf("/");
    const res = slash < 0 ? entry : entry.slice(0, slash);
    const sub = slash < 0 ? "" : entry.slice(slash + 1);
    if ((res === "*" || res === opRes) && (sub === "*" || sub === opSub)) return true;
  }
  return false;
}

/** Whether `rule` matches `req` (scope, operation, group, version and resource). */
export function ruleMatches(rule: AdmissionRule, req: RuleRequest): boolean {
  return scopeMatches(rule.scope, req) &&
    exactOrWildcard(rule.operations, req.operation) &&
    exactOrWildcard(rule.apiGroups, req.resource.group) &&
    exactOrWildcard(rule.apiVersions, req.resource.version) &&
    resourceMatches(rule.resources, req);
}

/** Whether a named rule matches, including its resource names against `name`. */
export function namedRuleMatches(
  rule: NamedAdmissionRule,
  req: RuleRequest,
  name: string,
): boolean {
  if (!ruleMatches(rule, req)) return false;
  const names = rule.resourceNames;
  return !names || names.length === 0 || names.includes(name);
}

const ADMISSION_CONFIGURATION_RESOURCES = new Set([
  "validatingwebhookconfigurations",
  "mutatingwebhookconfigurations",
  "validatingadmissionpolicies",
  "validatingadmissionpolicybindings",
  "mutatingadmissionpolicies",
  "mutatingadmissionpolicybindings",
]);

/**
 * Kubernetes' `IsExemptAdmissionConfigurationResource`: webhooks and policies never see writes
 * of the admission configuration itself, so a bad configuration can always be repaired.
 */
export function isExemptAdmissionConfigurationResource(r: GroupVersionResource): boolean {
  return r.group === "admissionregistration.k8s.io" &&
    ADMISSION_CONFIGURATION_RESOURCES.has(r.resource);
}
