/**
 * Parts of admission policies and their bindings: match resources defaults, the param kind and
 * param reference rules, validation actions, and the selector text kubectl prints.
 *
 * @module
 */
import type { FieldError } from "../../../shared/errors/status_error.ts";
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { isObject } from "../../../shared/json/is_object.ts";
import {
  duplicate,
  forbidden,
  invalid,
  notSupported,
  required,
} from "../../../shared/api/validation/field_errors.ts";
import {
  isDNS1035Label,
  isDNS1123Subdomain,
  isValidPathSegmentName,
} from "../../../shared/api/validation/identifiers.ts";
import type { TableColumns } from "../generic/kind.ts";
import {
  AGE_COLUMN,
  ageOf,
  column,
  listOf,
  NAME_COLUMN,
  objectOf,
} from "../generic/table_columns.ts";
import { stringOf, stringsOf, validateLabelSelector } from "./rules.ts";

const ACTIONS = ["Audit", "Deny", "Warn"];

/**
 * A policy's columns as kube prints them: Name, the count of its `rules` (`Validations` or
 * `Mutations`, with kube's description), ParamKind, Age.
 */
export function policyColumns(
  rules: { name: string; field: string; description: string },
): TableColumns {
  return {
    columns: [
      NAME_COLUMN,
      column(rules.name, "integer", rules.description),
      column(
        "ParamKind",
        "string",
        "ParamKind specifies the kind of resources used to parameterize this policy",
      ),
      AGE_COLUMN,
    ],
    cells(o, now) {
      const spec = specOf(o);
      const pk = isObject(spec.paramKind) ? spec.paramKind : undefined;
      return [
        o.metadata?.name ?? "",
        listOf(spec[rules.field]).length,
        pk ? `${pk.apiVersion ?? ""}/${pk.kind ?? ""}` : "<unset>",
        ageOf(o, now),
      ];
    },
  };
}

/** A policy's defaults: failurePolicy Fail and its match resources' (SetDefaults_*PolicySpec). */
export function defaultPolicySpec(obj: KubeObject): void {
  if (!isObject(obj.spec)) return;
  obj.spec.failurePolicy ??= "Fail";
  defaultMatchResources(obj.spec.matchConstraints);
}

/** The `spec` of an object (`{}` when absent). */
export function specOf(obj: KubeObject): Record<string, unknown> {
  return isObject(obj.spec) ? obj.spec : {};
}

/** SetDefaults_MatchResources and SetDefaults_Rule of its rules. */
export function defaultMatchResources(mr: unknown): void {
  if (!isObject(mr)) return;
  mr.matchPolicy ??= "Equivalent";
  mr.namespaceSelector ??= {};
  mr.objectSelector ??= {};
  for (const list of ["resourceRules", "excludeResourceRules"]) {
    for (const rule of Array.isArray(mr[list]) ? mr[list] : []) {
      if (isObject(rule)) rule.scope ??= "*";
    }
  }
}

function groupVersionErrors(field: string, apiVersion: string): FieldError[] {
  if (apiVersion === "/") return [invalid(field, apiVersion, "version must be specified")];
  const parts = apiVersion.split("/");
  if (parts.length > 2) {
    return [invalid(field, apiVersion, `unexpected GroupVersion string: ${apiVersion}`)];
  }
  const [group, version] = parts.length === 1 ? ["", parts[0]] : parts;
  const errs: FieldError[] = [];
  if (group !== "") {
    const msgs = isDNS1123Subdomain(group);
    if (msgs.length > 0) errs.push(invalid(field, group, msgs.join(",")));
  }
  if (version === "") errs.push(invalid(field, apiVersion, "version must be specified"));
  else {
    const msgs = isDNS1035Label(version);
    if (msgs.length > 0) errs.push(invalid(field, version, msgs.join(",")));
  }
  return errs;
}

/** validateParamKind: apiVersion a group/version, kind a DNS-1035 label in any case. */
export function validateParamKind(field: string, pk: unknown): FieldError[] {
  const p = objectOf(pk);
  const apiVersion = stringOf(p.apiVersion) ?? "", kind = stringOf(p.kind) ?? "";
  const errs = apiVersion === ""
    ? [required(`${field}.apiVersion`)]
    : groupVersionErrors(`${field}.apiVersion`, apiVersion);
  if (kind === "") errs.push(required(`${field}.kind`));
  else {
    const msgs = isDNS1035Label(kind.toLowerCase());
    if (msgs.length > 0) {
      errs.push(
        invalid(
          `${field}.kind`,
          kind,
          "may have mixed case, but should otherwise match: " + msgs.join(","),
        ),
      );
    }
  }
  return errs;
}

/** validateParamRef: name xor selector, and parameterNotFoundAction Allow or Deny. */
export function validateParamRef(field: string, ref: unknown): FieldError[] {
  if (!isObject(ref)) return [];
  const errs: FieldError[] = [];
  const name = stringOf(ref.name) ?? "", hasSelector = isObject(ref.selector);
  if (name !== "") {
    for (const msg of isValidPathSegmentName(name)) errs.push(invalid(`${field}.name`, name, msg));
    if (hasSelector) {
      errs.push(forbidden(`${field}.name`, "name and selector are mutually exclusive"));
    }
  }
  if (hasSelector) {
    errs.push(...validateLabelSelector(`${field}.selector`, ref.selector));
    if (name !== "") {
      errs.push(forbidden(`${field}.selector`, "name and selector are mutually exclusive"));
    }
  }
  if (name === "" && !hasSelector) {
    errs.push(required(field, "one of name or selector must be specified"));
  }
  const action = ref.parameterNotFoundAction;
  if (action === undefined || action === null || action === "") {
    errs.push(required(`${field}.parameterNotFoundAction`));
  } else if (action !== "Deny" && action !== "Allow") {
    errs.push(notSupported(`${field}.parameterNotFoundAction`, action, ["Deny", "Allow"]));
  }
  return errs;
}

/** validateValidationActions: known, unique, not both Deny and Warn, at least one. */
export function validateValidationActions(field: string, v: unknown): FieldError[] {
  const actions = stringsOf(v);
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  for (const [i, a] of actions.entries()) {
    if (!ACTIONS.includes(a)) errs.push(notSupported(`${field}[${i}]`, a, ACTIONS));
    if (seen.has(a)) errs.push(duplicate(`${field}[${i}]`, a));
    seen.add(a);
  }
  if (seen.has("Deny") && seen.has("Warn")) {
    errs.push(
      invalid(
        field,
        actions,
        "must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)",
      ),
    );
  }
  if (seen.size === 0) errs.push(required(field, "at least one validation action is required"));
  return errs;
}

/** A label selector as Go's generated String() renders it (kubectl's ParamRef column). */
export function selectorText(sel: Record<string, unknown>): string {
  const labels = objectOf(sel.matchLabels);
  const pairs = Object.keys(labels).sort().map((k) => `${k}: ${labels[k]},`).join("");
  const exprs = listOf(sel.matchExpressions).map((e) =>
    `LabelSelectorRequirement{Key:${e.key ?? ""},Operator:${e.operator ?? ""},Values:[${
      stringsOf(e.values).join(" ")
    }],},`
  ).join("");
  return `&LabelSelector{MatchLabels:map[string]string{${pairs}},` +
    `MatchExpressions:[]LabelSelectorRequirement{${exprs}},}`;
}
