/**
 * What webhooks and admission policies share in validation: rules (operations, API groups,
 * versions, resources, scope), label selectors, match resources and match conditions, with
 * Kubernetes' messages (pkg/apis/admissionregistration/validation).
 *
 * @module
 */
import type { FieldError } from "../../../shared/errors/status_error.ts";
import {
  duplicate,
  invalid,
  notSupported,
  required,
} from "../../../shared/api/validation/field_errors.ts";
import {
  isDNS1123Subdomain,
  isQualifiedName,
  isValidPathSegmentName,
} from "../../../shared/api/validation/identifiers.ts";
import { isObject } from "../../../shared/json/is_object.ts";
import { listOf } from "../generic/table_columns.ts";
import { validateSelectorShape } from "../apps/workload.ts";
import type { AdmissionExpressionCompiler, ExpressionScope } from "./cel_expressions.ts";

const SCOPES = ["*", "Cluster", "Namespaced"];
const OPERATIONS = ["*", "CONNECT", "CREATE", "DELETE", "UPDATE"];
/** The allowed failure policies, sorted as Kubernetes lists them. */
export const FAILURE_POLICIES = ["Fail", "Ignore"];
/** The allowed match policies, sorted as Kubernetes lists them. */
export const MATCH_POLICIES = ["Equivalent", "Exact"];

/** The strings of a JSON list (other entries become ""). */
export function stringsOf(v: unknown): string[] {
  return Array.isArray(v) ? v.map((s) => (typeof s === "string" ? s : "")) : [];
}

/** A string field's value, or undefined when absent or not a string. */
export function stringOf(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

/** `field: Unsupported value` unless absent or one of `allowed`. */
export function oneOf(field: string, v: unknown, allowed: readonly string[]): FieldError[] {
  return v === undefined || v === null || allowed.includes(v as string)
    ? []
    : [notSupported(field, v, allowed)];
}

function wildcardMixed(field: string, list: string[], what: string): FieldError[] {
  return list.length > 1 && list.includes("*")
    ? [invalid(field, list, `if '*' is present, must not specify other ${what}`)]
    : [];
}

function validateResources(field: string, resources: string[]): FieldError[] {
  const errs: FieldError[] = resources.length === 0 ? [required(field)] : [];
  const wildSub = new Set<string>(), wildRes = new Set<string>();
  let doubleWild = false, singleWild = false, plain = false;
  for (const [i, rs] of resources.entries()) {
    if (rs === "") {
      errs.push(required(`${field}[${i}]`));
      continue;
    }
    if (rs === "*/*") doubleWild = true;
    if (rs === "*") singleWild = true;
    const slash = rs.indexOf("/");
    if (slash < 0) {
      plain = rs !== "*";
      continue;
    }
    const res = rs.slice(0, slash), sub = rs.slice(slash + 1);
    if (wildSub.has(res)) {
      errs.push(invalid(`${field}[${i}]`, rs, `if '${res}/*' is present, must not specify ${rs}`));
    }
    if (wildRes.has(sub)) {
      errs.push(invalid(`${field}[${i}]`, rs, `if '*/${sub}' is present, must not specify ${rs}`));
    }
    if (sub === "*") wildSub.add(res);
    if (res === "*") wildRes.add(sub);
  }
  if (resources.length > 1 && doubleWild) {
    errs.push(invalid(field, resources, "if '*/*' is present, must not specify other resources"));
  }
  if (singleWild && plain) {
    errs.push(
      invalid(
        field,
        resources,
        "if '*' is present, must not specify other resources without subresources",
      ),
    );
  }
  return errs;
}

/** validateRuleWithOperations: operations and the inlined rule at `field`. */
export function validateRuleWithOperations(field: string, rule: unknown): FieldError[] {
  const r = isObject(rule) ? rule : {};
  const ops = stringsOf(r.operations);
  const errs: FieldError[] = ops.length === 0 ? [required(`${field}.operations`)] : [];
  errs.push(...wildcardMixed(`${field}.operations`, ops, "operations"));
  for (const [i, op] of ops.entries()) {
    if (!OPERATIONS.includes(op)) {
      errs.push(notSupported(`${field}.operations[${i}]`, op, OPERATIONS));
    }
  }
  const groups = stringsOf(r.apiGroups), versions = stringsOf(r.apiVersions);
  if (groups.length === 0) errs.push(required(`${field}.apiGroups`));
  errs.push(...wildcardMixed(`${field}.apiGroups`, groups, "API groups"));
  if (versions.length === 0) errs.push(required(`${field}.apiVersions`));
  errs.push(...wildcardMixed(`${field}.apiVersions`, versions, "API versions"));
  for (const [i, v] of versions.entries()) {
    if (v === "") errs.push(required(`${field}.apiVersions[${i}]`));
  }
  errs.push(...validateResources(`${field}.resources`, stringsOf(r.resources)));
  errs.push(...oneOf(`${field}.scope`, r.scope, SCOPES));
  return errs;
}

/** ValidateLabelSelector on an optional selector. */
export function validateLabelSelector(field: string, sel: unknown): FieldError[] {
  return isObject(sel) ? validateSelectorShape(field, sel) : [];
}

function validateNamedRule(field: string, rule: unknown): FieldError[] {
  const r = isObject(rule) ? rule : {};
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  for (const [i, name] of stringsOf(r.resourceNames).entries()) {
    const f = `${field}.resourceNames[${i}]`;
    for (const msg of isValidPathSegmentName(name)) errs.push(invalid(f, name, msg));
    if (seen.has(name)) errs.push(duplicate(f, name));
    seen.add(name);
  }
  return [...errs, ...validateRuleWithOperations(field, r)];
}

/** validateMatchResources: match policy and both selectors required (they are defaulted). */
export function validateMatchResources(field: string, mr: unknown): FieldError[] {
  if (!isObject(mr)) return [];
  const errs: FieldError[] = [];
  if (mr.matchPolicy === undefined || mr.matchPolicy === null) {
    errs.push(required(`${field}.matchPolicy`));
  } else errs.push(...oneOf(`${field}.matchPolicy`, mr.matchPolicy, MATCH_POLICIES));
  for (const s of ["namespaceSelector", "objectSelector"]) {
    if (!isObject(mr[s])) errs.push(required(`${field}.${s}`));
    else errs.push(...validateLabelSelector(`${field}.${s}`, mr[s]));
  }
  for (const list of ["resourceRules", "excludeResourceRules"]) {
    for (const [i, r] of listOf(mr[list]).entries()) {
      errs.push(...validateNamedRule(`${field}.${list}[${i}]`, r));
    }
  }
  return errs;
}

/** ValidateQualifiedName: one Invalid error per problem. */
export function qualifiedName(field: string, value: string): FieldError[] {
  return isQualifiedName(value).map((msg) => invalid(field, value, msg));
}

/** validateMatchConditions: at most 64, names qualified and unique, bool CEL expressions. */
export function validateMatchConditions(
  field: string,
  conditions: unknown,
  compiler: AdmissionExpressionCompiler,
  scope: ExpressionScope,
): FieldError[] {
  const list = listOf(conditions);
  const errs: FieldError[] = [];
  if (list.length > 64) {
    errs.push({
      type: "FieldValueTooMany",
      field,
      value: list.length,
      detail: `${list.length}: must have at most 64 items`,
    });
  }
  const names = new Set<string>();
  for (const [i, c] of list.entries()) {
    const f = `${field}[${i}]`;
    const expression = (stringOf(c.expression) ?? "").trim();
    if (expression === "") errs.push(required(`${f}.expression`));
    else errs.push(...compiler.check(`${f}.expression`, expression, scope, "bool"));
    const name = stringOf(c.name) ?? "";
    if (name === "") errs.push(required(`${f}.name`));
    else errs.push(...qualifiedName(`${f}.name`, name));
    if (name !== "" && names.has(name)) errs.push(duplicate(`${f}.name`, name));
    names.add(name);
  }
  return errs;
}

/** IsFullyQualifiedName: a DNS subdomain of at least three labels. */
export function fullyQualifiedName(field: string, name: string): FieldError[] {
  if (name === "") return [required(field)];
  const msgs = isDNS1123Subdomain(name);
  if (msgs.length > 0) return [invalid(field, name, msgs.join(","))];
  return name.split(".").length < 3
    ? [invalid(field, name, "should be a domain with at least three segments separated by dots")]
    : [];
}
