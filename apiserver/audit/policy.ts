/**
 * The audit policy (audit.k8s.io/v1 `Policy`, `--audit-policy-file`): an ordered list of rules;
 * the first rule matching a request decides its level (None when no rule matches), the stages
 * left out and whether managed fields are dropped from the logged objects.
 *
 * @module
 */
import { parse as parseYaml } from "yaml";

/** How much of a request is recorded. */
export type AuditLevel = "None" | "Metadata" | "Request" | "RequestResponse";
/** The stages an event is emitted at. */
export type AuditStage = "RequestReceived" | "ResponseStarted" | "ResponseComplete" | "Panic";

export const AUDIT_LEVELS: readonly AuditLevel[] = [
  "None",
  "Metadata",
  "Request",
  "RequestResponse",
];
export const AUDIT_STAGES: readonly AuditStage[] = [
  "RequestReceived",
  "ResponseStarted",
  "ResponseComplete",
  "Panic",
];

/** A `resources` entry of a rule. */
export interface GroupResources {
  /** "" is the core group. */
  group: string;
  /** `pods`, `pods/log`, `pods/*`, `*\/scale`, `*`; empty: every resource of the group. */
  resources: string[];
  /** Empty: every name. */
  resourceNames: string[];
}

/** One rule of the policy. */
export interface PolicyRule {
  level: AuditLevel;
  users: string[];
  userGroups: string[];
  verbs: string[];
  resources: GroupResources[];
  namespaces: string[];
  nonResourceURLs: string[];
  omitStages: AuditStage[];
  omitManagedFields?: boolean;
}

/** A parsed policy. */
export interface AuditPolicy {
  rules: PolicyRule[];
  omitStages: AuditStage[];
  omitManagedFields: boolean;
}

/** What a rule is matched against. */
export interface AuditAttributes {
  user?: { username: string; groups: string[] };
  verb: string;
  isResourceRequest: boolean;
  path: string;
  apiGroup: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
}

/** The policy's decision for one request. */
export interface AuditDecision {
  level: AuditLevel;
  omitStages: ReadonlySet<AuditStage>;
  omitManagedFields: boolean;
}

/** The decision of a request no rule matches. */
export const NO_AUDIT: AuditDecision = {
  level: "None",
  omitStages: new Set(),
  omitManagedFields: false,
};

/** Evaluates `policy` for a request: the first matching rule decides. */
export function evaluatePolicy(policy: AuditPolicy, attrs: AuditAttributes): AuditDecision {
  for (const rule of policy.rules) {
    if (!ruleMatches(rule, attrs)) continue;
    return {
      level: rule.level,
      omitStages: new Set([...policy.omitStages, ...rule.omitStages]),
      omitManagedFields: rule.omitManagedFields ?? policy.omitManagedFields,
    };
  }
  return NO_AUDIT;
}

function ruleMatches(r: PolicyRule, a: AuditAttributes): boolean {
  if (r.users.length > 0 && !r.users.includes(a.user?.username ?? "")) return false;
  if (r.userGroups.length > 0 && !(a.user?.groups ?? []).some((g) => r.userGroups.includes(g))) {
    return false;
  }
  if (r.verbs.length > 0 && !r.verbs.includes(a.verb)) return false;
  if (a.isResourceRequest) {
    if (r.nonResourceURLs.length > 0) return false;
    if (r.namespaces.length > 0 && !r.namespaces.includes(a.namespace)) return false;
    return r.resources.length === 0 || r.resources.some((gr) => groupResourceMatches(gr, a));
  }
  if (r.namespaces.length > 0 || r.resources.length > 0) return false;
  return r.nonResourceURLs.length === 0 || r.nonResourceURLs.some((u) => urlMatches(u, a.path));
}

function urlMatches(pattern: string, path: string): boolean {
  if (pattern === "*" || pattern === path) return true;
  return pattern.endsWith("*") && path.startsWith(pattern.slice(0, -1));
}

function groupResourceMatches(gr: GroupResources, a: AuditAttributes): boolean {
  if (gr.group !== a.apiGroup) return false;
  if (gr.resources.length === 0) return true;
  if (gr.resourceNames.length > 0 && !gr.resourceNames.includes(a.name)) return false;
  const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  return gr.resources.some((res) =>
    res === "*" || res === combined ||
    (a.subresource !== "" && res.startsWith("*/") && res.slice(2) === a.subresource) ||
    (res.endsWith("/*") && res.slice(0, -2) === a.resource)
  );
}

/** Parses a policy file's text (YAML or JSON); throws an Error listing every problem. */
export function parseAuditPolicy(text: string): AuditPolicy {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new Error(`invalid audit policy: ${(err as Error).message}`);
  }
  const errors: string[] = [];
  const obj = record(doc);
  if (obj.kind !== "Policy") errors.push(`kind: Invalid value: ${JSON.stringify(obj.kind)}`);
  if (obj.apiVersion !== "audit.k8s.io/v1") {
    errors.push(
      `apiVersion: Unsupported value: ${JSON.stringify(obj.apiVersion)}: supported ` +
        `values: "audit.k8s.io/v1"`,
    );
  }
  const omitStages = stages(obj.omitStages, "omitStages", errors);
  const rules = array(obj.rules).map((r, i) => parseRule(record(r), `rules[${i}]`, errors));
  if (errors.length > 0) throw new Error(`invalid audit policy: ${errors.join("; ")}`);
  return { rules, omitStages, omitManagedFields: obj.omitManagedFields === true };
}

function parseRule(r: Record<string, unknown>, path: string, errors: string[]): PolicyRule {
  const level = r.level as AuditLevel;
  if (r.level === undefined || r.level === "") errors.push(`${path}.level: Required value`);
  else if (!AUDIT_LEVELS.includes(level)) {
    errors.push(
      `${path}.level: Unsupported value: ${JSON.stringify(r.level)}: supported ` +
        `values: ${AUDIT_LEVELS.map((l) => JSON.stringify(l)).join(", ")}`,
    );
  }
  const rule: PolicyRule = {
    level,
    users: strings(r.users),
    userGroups: strings(r.userGroups),
    verbs: strings(r.verbs),
    namespaces: strings(r.namespaces),
    nonResourceURLs: strings(r.nonResourceURLs),
    resources: array(r.resources).map((g) => {
      const gr = record(g);
      return {
        group: String(gr.group ?? ""),
        resources: strings(gr.resources),
        resourceNames: strings(gr.resourceNames),
      };
    }),
    omitStages: stages(r.omitStages, `${path}.omitStages`, errors),
    ...(typeof r.omitManagedFields === "boolean" ? { omitManagedFields: r.omitManagedFields } : {}),
  };
  if (rule.nonResourceURLs.length > 0 && (rule.resources.length > 0 || rule.namespaces.length)) {
    errors.push(
      `${path}.nonResourceURLs: Invalid value: ${JSON.stringify(rule.nonResourceURLs)}` +
        `: rules cannot apply to both regular resources and non-resource URLs`,
    );
  }
  rule.nonResourceURLs.forEach((u, i) => {
    if (!u.startsWith("/") && u !== "*") {
      errors.push(
        `${path}.nonResourceURLs[${i}]: Invalid value: ${JSON.stringify(u)}: ` +
          `non-resource URL rules must begin with a '/' character`,
      );
    } else if (u.slice(0, -1).includes("*")) {
      errors.push(
        `${path}.nonResourceURLs[${i}]: Invalid value: ${JSON.stringify(u)}: ` +
          `non-resource URL wildcards '*' must be the final character of the rule`,
      );
    }
  });
  return rule;
}

function stages(v: unknown, path: string, errors: string[]): AuditStage[] {
  return strings(v).filter((s, i) => {
    if (AUDIT_STAGES.includes(s as AuditStage)) return true;
    errors.push(
      `${path}[${i}]: Unsupported value: ${JSON.stringify(s)}: supported values: ` +
        AUDIT_STAGES.map((l) => JSON.stringify(l)).join(", "),
    );
    return false;
  }) as AuditStage[];
}

function record(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v)
    ? v as Record<string, unknown>
    : {};
}

function array(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

function strings(v: unknown): string[] {
  return array(v).map((s) => String(s));
}
