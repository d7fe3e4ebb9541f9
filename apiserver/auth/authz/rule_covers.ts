/**
 * Escalation arithmetic: whether one set of rules covers another (every atomic permission of
 * the second is granted by the first), and Kubernetes' compact rule text used in the
 * "attempting to grant RBAC permissions not currently held" message.
 *
 * @module
 */
import type { PolicyRule } from "./rbac_types.ts";

/** One atomic permission: a single verb on one resource (and name), or on one URL. */
interface AtomicRule {
  verb: string;
  group?: string;
  resource?: string;
  name?: string;
  url?: string;
}

function breakdown(rule: PolicyRule): AtomicRule[] {
  const out: AtomicRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs ?? []) {
        const names = rule.resourceNames?.length ? rule.resourceNames : [""];
        for (const name of names) out.push({ verb, group, resource, name });
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) {
    for (const verb of rule.verbs ?? []) out.push({ verb, url });
  }
  return out;
}

function has(list: readonly string[] | undefined, v: string): boolean {
  return (list ?? []).includes(v);
}

function resourceCovers(owner: readonly string[] | undefined, resource: string): boolean {
  if (has(owner, "*") || has(owner, resource)) return true;
  const slash = resource.indexOf("/");
  return slash >= 0 && has(owner, `*/${resource.slice(slash + 1)}`);
}

function urlCovers(owner: readonly string[] | undefined, url: string): boolean {
  for (const o of owner ?? []) {
    if (o === "*" || o === url) return true;
    if (o.endsWith("*") && url.startsWith(o.replace(/\*+$/, ""))) return true;
  }
  return false;
}

function ruleCovers(owner: PolicyRule, a: AtomicRule): boolean {
  if (!has(owner.verbs, "*") && !has(owner.verbs, a.verb)) return false;
  if (a.url !== undefined) return urlCovers(owner.nonResourceURLs, a.url);
  if (!has(owner.apiGroups, "*") && !has(owner.apiGroups, a.group!)) return false;
  if (!resourceCovers(owner.resources, a.resource!)) return false;
  if (!owner.resourceNames?.length) return true;
  return a.name !== "" && has(owner.resourceNames, a.name!);
}

/** The atomic rules of `servant` that no rule of `owner` covers, compacted and sorted. */
export function uncoveredRules(
  owner: readonly PolicyRule[],
  servant: readonly PolicyRule[],
): PolicyRule[] {
  const missing: AtomicRule[] = [];
  for (const rule of servant) {
    for (const a of breakdown(rule)) {
      if (!owner.some((o) => ruleCovers(o, a))) missing.push(a);
    }
  }
  const merged = new Map<string, PolicyRule>();
  for (const a of missing) {
    const key = JSON.stringify([a.group, a.resource, a.name, a.url]);
    const existing = merged.get(key);
    if (existing) {
      if (!existing.verbs.includes(a.verb)) existing.verbs.push(a.verb);
      continue;
    }
    const rule: PolicyRule = { verbs: [a.verb] };
    if (a.url !== undefined) rule.nonResourceURLs = [a.url];
    else {
      rule.apiGroups = [a.group!];
      rule.resources = [a.resource!];
      if (a.name) rule.resourceNames = [a.name];
    }
    merged.set(key, rule);
  }
  return [...merged.values()].sort((x, y) => {
    const a = compactRuleString(x), b = compactRuleString(y);
    return a < b ? -1 : a > b ? 1 : 0;
  });
}

/** Whether `owner` covers every permission of `servant`. */
export function covers(owner: readonly PolicyRule[], servant: readonly PolicyRule[]): boolean {
  return uncoveredRules(owner, servant).length === 0;
}

/** Go's `%q` of a string slice: `["a" "b"]`. */
export function goQuoteList(list: readonly string[]): string {
  return `[${list.map((s) => JSON.stringify(s)).join(" ")}]`;
}

/** Kubernetes' compact text of a rule, e.g. `{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`. */
export function compactRuleString(rule: PolicyRule): string {
  const parts: string[] = [];
  if (rule.apiGroups?.length) parts.push(`APIGroups:${goQuoteList(rule.apiGroups)}`);
  if (rule.resources?.length) parts.push(`Resources:${goQuoteList(rule.resources)}`);
  if (rule.nonResourceURLs?.length) {
    parts.push(`NonResourceURLs:${goQuoteList(rule.nonResourceURLs)}`);
  }
  if (rule.resourceNames?.length) parts.push(`ResourceNames:${goQuoteList(rule.resourceNames)}`);
  if (rule.verbs?.length) parts.push(`Verbs:${goQuoteList(rule.verbs)}`);
  return `{${parts.join(", ")}}`;
}
