/**
 * Which admission webhooks a request matches, as k8s.io/apiserver's webhook matching does:
 * the rules (operations, apiGroups, apiVersions, resources with `*`, `*\/*`, `pods/*`,
 * `*\/scale`, and scope), `matchPolicy: Equivalent` (a rule matching another served version
 * of the same stored resource matches, and the webhook gets the object in that version), the
 * `namespaceSelector` (cluster-scoped requests other than Namespaces always match; a Namespace
 * create or update is matched by its own new labels) and the `objectSelector` (the new or the
 * old object's labels).
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import {
  LabelSelector,
  labelSelectorFromObject,
} from "../../../shared/selectors/label_selector.ts";
import type { AdmissionAttributes } from "../../registry/generic/admission.ts";
import { apiVersionOf, type KindDef } from "../../registry/generic/kind.ts";

type Obj = Record<string, unknown>;
const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
const rulesOf = (v: unknown): Obj[] =>
  Array.isArray(v) ? v.filter((x): x is Obj => typeof x === "object" && x !== null) : [];

/** The resource a rule is checked against. */
export interface MatchTarget {
  group: string;
  version: string;
  resource: string;
  subresource: string;
}

function listMatches(list: string[], value: string): boolean {
  return list.includes("*") || list.includes(value);
}

function resourceMatches(patterns: string[], resource: string, subresource: string): boolean {
  for (const p of patterns) {
    if (p === "*/*") return true;
    const slash = p.indexOf("/");
    const res = slash < 0 ? p : p.slice(0, slash);
    const sub = slash < 0 ? "" : p.slice(slash + 1);
    if ((res === "*" || res === resource) && (sub === "*" || sub === subresource)) return true;
  }
  return false;
}

function scopeMatches(scope: unknown, attrs: AdmissionAttributes): boolean {
  const isNamespace = attrs.kind.group === "" && attrs.kind.plural === "namespaces";
  if (scope === "Namespaced") return !isNamespace && attrs.namespace !== "";
  if (scope === "Cluster") return isNamespace || attrs.namespace === "";
  return true;
}

/** Whether one of `rules` (RuleWithOperations) matches the request at `target`. */
export function rulesMatch(
  rules: unknown,
  attrs: AdmissionAttributes,
  target: MatchTarget,
): boolean {
  return rulesOf(rules).some((rule) =>
    listMatches(strings(rule.operations), attrs.operation) &&
    listMatches(strings(rule.apiGroups), target.group) &&
    listMatches(strings(rule.apiVersions), target.version) &&
    resourceMatches(strings(rule.resources), target.resource, attrs.subresource) &&
    scopeMatches(rule.scope, attrs)
  );
}

/** Where a matched webhook is called: the kind it sees the object as. */
export interface MatchedVersion {
  /** The kind (version) the webhook's rule matched. */
  def: KindDef;
  /** The object in that version (identity when it is the request's). */
  toVersion(obj: KubeObject): KubeObject;
  /** An object of that version back in the request's version. */
  fromVersion(obj: KubeObject): KubeObject;
}

const identity = (o: KubeObject) => o;

function targetOf(def: KindDef, subresource: string): MatchTarget {
  return { group: def.group, version: def.version, resource: def.plural, subresource };
}

/**
 * The version through which `rules` match the request: the request's own kind, or with
 * `matchPolicy: Equivalent` another served version of the same stored resource (`others`).
 * Undefined when nothing matches.
 */
export function matchVersion(
  rules: unknown,
  matchPolicy: unknown,
  attrs: AdmissionAttributes,
  others: () => KindDef[],
): MatchedVersion | undefined {
  const own = attrs.kind;
  if (rulesMatch(rules, attrs, targetOf(own, attrs.subresource))) {
    return { def: own, toVersion: identity, fromVersion: identity };
  }
  if (matchPolicy === "Exact") return undefined;
  for (const def of others()) {
    const conv = def.servedFrom;
    if (!conv || def === own) continue;
    if (!rulesMatch(rules, attrs, targetOf(def, attrs.subresource))) continue;
    return {
      def,
      toVersion: (obj) => {
        const out = conv.fromStorage(obj);
        out.apiVersion = apiVersionOf(def);
        out.kind = def.kind;
        return out;
      },
      fromVersion: (obj) => {
        const out = conv.toStorage(obj);
        out.apiVersion = apiVersionOf(own);
        out.kind = own.kind;
        return out;
      },
    };
  }
  return undefined;
}

/** A label selector of a webhook, converted once; invalid ones fail the request. */
export function selectorOf(v: unknown): LabelSelector | Error {
  if (v === undefined || v === null) return LabelSelector.everything();
  try {
    return labelSelectorFromObject(v as Parameters<typeof labelSelectorFromObject>[0]);
  } catch (err) {
    return err as Error;
  }
}

/** Whether the object selector matches the new or the old object. */
export function objectSelectorMatches(
  sel: LabelSelector | Error,
  attrs: AdmissionAttributes,
): boolean {
  if (sel instanceof Error) throw StatusError.internal(sel.message);
  if (sel.empty()) return true;
  const labelsOf = (o: KubeObject | undefined) => o ? o.metadata?.labels ?? {} : undefined;
  const now = labelsOf(attrs.object), old = labelsOf(attrs.oldObject);
  return (now !== undefined && sel.matches(now)) || (old !== undefined && sel.matches(old));
}

/** Reads a Namespace's labels (undefined when it does not exist). */
export type NamespaceLabels = (name: string) => Promise<Record<string, string> | undefined>;

/** Whether the namespace selector matches the request's namespace. */
export async function namespaceSelectorMatches(
  sel: LabelSelector | Error,
  attrs: AdmissionAttributes,
  namespaceLabels: NamespaceLabels,
): Promise<boolean> {
  if (sel instanceof Error) throw StatusError.internal(sel.message);
  const isNamespace = attrs.kind.group === "" && attrs.kind.plural === "namespaces";
  if (!isNamespace && attrs.namespace === "") return true;
  if (sel.empty()) return true;
  if (
    isNamespace && attrs.subresource === "" &&
    (attrs.operation === "CREATE" || attrs.operation === "UPDATE")
  ) {
    return sel.matches(attrs.object?.metadata?.labels ?? {});
  }
  const name = isNamespace ? attrs.name : attrs.namespace;
  const labels = await namespaceLabels(name);
  if (labels === undefined) {
    throw StatusError.internal(`namespaces ${JSON.stringify(name)} not found`);
  }
  return sel.matches(labels);
}
