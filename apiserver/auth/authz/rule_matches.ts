/**
 * Whether one RBAC rule allows a request, as Kubernetes' RBAC authorizer decides it: `*`
 * matches every verb, group and resource; `pods/log` names a subresource and `*\/log` that
 * subresource of every resource; resourceNames restrict to named objects (a list or watch
 * names its object with a `metadata.name` field selector); nonResourceURLs match exactly or by
 * a `*` suffix.
 *
 * @module
 */
import type { AuthzAttributes } from "./authorizer.ts";
import type { PolicyRule } from "./rbac_types.ts";

/** Whether `rule.verbs` holds `*` or the verb. */
export function verbMatches(rule: PolicyRule, verb: string): boolean {
  for (const v of rule.verbs ?? []) if (v === "*" || v === verb) return true;
  return false;
}

/** Whether `rule.apiGroups` holds `*` or the group. */
export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  for (const g of rule.apiGroups ?? []) if (g === "*" || g === group) return true;
  return false;
}

/** Whether `rule.resources` matches `resource` with its `subresource` ("" for none). */
export function resourceMatches(rule: PolicyRule, resource: string, subresource: string): boolean {
  const combined = subresource ? `${resource}/${subresource}` : resource;
  for (const r of rule.resources ?? []) {
    if (r === "*" || r === combined) return true;
    if (subresource && r === `*/${subresource}`) return true;
  }
  return false;
}

/** Whether `rule.resourceNames` is empty or holds `name`. */
export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  if (names.length === 0) return true;
  return name !== "" && names.includes(name);
}

/** Whether `rule.nonResourceURLs` matches `path`. */
export function nonResourceUrlMatches(rule: PolicyRule, path: string): boolean {
  for (const u of rule.nonResourceURLs ?? []) {
    if (u === "*" || u === path) return true;
    if (u.endsWith("*") && path.startsWith(u.slice(0, -1))) return true;
  }
  return false;
}

/** Whether the rule allows the request. */
export function ruleAllows(a: AuthzAttributes, rule: PolicyRule): boolean {
  if (a.isResourceRequest) {
    return verbMatches(rule, a.verb) && apiGroupMatches(rule, a.apiGroup) &&
      resourceMatches(rule, a.resource, a.subresource) && resourceNameMatches(rule, a.name);
  }
  return verbMatches(rule, a.verb) && nonResourceUrlMatches(rule, a.path);
}

/** Whether any of the rules allows the request. */
export function rulesAllow(a: AuthzAttributes, rules: readonly PolicyRule[]): boolean {
  for (const r of rules) if (ruleAllows(a, r)) return true;
  return false;
}
