/**
 * Validation and defaulting of the RBAC kinds as Kubernetes does it: rules (verbs required;
 * resource rules need groups and resources; nonResourceURLs only in cluster roles and never
 * mixed with resources), aggregation rules, subjects (User/Group in the RBAC group,
 * ServiceAccount in the core group with a namespace) and role references.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import type { FieldError } from "../../../shared/errors/status_error.ts";
import { nameIsPathSegment } from "../../../shared/api/validation/name_validators.ts";
import { labelSelectorFromObject } from "../../../shared/selectors/label_selector.ts";
import { RBAC_GROUP } from "../../auth/authz/rbac_types.ts";
import { isObject } from "../../../shared/json/is_object.ts";
import { invalid, notSupported, required } from "../../../shared/api/validation/field_errors.ts";

function isStringList(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === "string");
}

/**
 * Validates `rules` of a Role (`namespaced`) or ClusterRole. The schema makes them a list of
 * objects whose fields are lists of strings; only their contents are checked here.
 */
export function validateRules(rules: unknown, namespaced: boolean, field = "rules"): FieldError[] {
  if (!Array.isArray(rules)) return [];
  const errs: FieldError[] = [];
  rules.forEach((rule, i) => {
    const f = `${field}[${i}]`;
    if (!isObject(rule)) return;
    const len = (k: string) => isStringList(rule[k]) ? (rule[k] as string[]).length : 0;
    if (len("verbs") === 0) {
      errs.push(required(`${f}.verbs`, "verbs must contain at least one value"));
    }
    if (len("nonResourceURLs") > 0) {
      if (namespaced) {
        errs.push(
          invalid(
            `${f}.nonResourceURLs`,
            rule.nonResourceURLs,
            "namespaced rules cannot apply to non-resource URLs",
          ),
        );
      }
      if (len("apiGroups") > 0 || len("resources") > 0) {
        errs.push(
          invalid(
            `${f}.nonResourceURLs`,
            rule.nonResourceURLs,
            "rules cannot apply to both regular resources and non-resource URLs",
          ),
        );
      }
      return;
    }
    if (len("apiGroups") === 0) {
      errs.push(required(`${f}.apiGroups`, "resource rules must supply at least one api group"));
    }
    if (len("resources") === 0) {
      errs.push(required(`${f}.resources`, "resource rules must supply at least one resource"));
    }
  });
  return errs;
}

/** Validates a ClusterRole's `aggregationRule` (an object, as the schema makes it). */
export function validateAggregationRule(rule: unknown): FieldError[] {
  if (!isObject(rule)) return [];
  const sels = rule.clusterRoleSelectors;
  if (!Array.isArray(sels) || sels.length === 0) {
    return [
      required(
        "aggregationRule.clusterRoleSelectors",
        "at least one clusterRoleSelector required if aggregationRule is non-nil",
      ),
    ];
  }
  const errs: FieldError[] = [];
  sels.forEach((s, i) => {
    try {
      labelSelectorFromObject(s as Parameters<typeof labelSelectorFromObject>[0]);
    } catch (err) {
      errs.push(
        invalid(`aggregationRule.clusterRoleSelectors[${i}]`, s, (err as Error).message),
      );
    }
  });
  return errs;
}

/** Sets the API groups Kubernetes defaults on subjects and roleRef. */
export function defaultBinding(obj: KubeObject): void {
  if (isObject(obj.roleRef) && !obj.roleRef.apiGroup) obj.roleRef.apiGroup = RBAC_GROUP;
  if (!Array.isArray(obj.subjects)) return;
  for (const s of obj.subjects) {
    if (!isObject(s) || s.apiGroup) continue;
    if (s.kind === "User" || s.kind === "Group") s.apiGroup = RBAC_GROUP;
  }
}

/** Validates a RoleBinding (`namespaced`) or ClusterRoleBinding. */
export function validateBinding(obj: KubeObject, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const ref = obj.roleRef;
  if (!isObject(ref)) errs.push(required("roleRef"));
  else {
    if (ref.apiGroup !== RBAC_GROUP) {
      errs.push(notSupported("roleRef.apiGroup", ref.apiGroup ?? "", [RBAC_GROUP]));
    }
    const kinds = namespaced ? ["Role", "ClusterRole"] : ["ClusterRole"];
    if (!kinds.includes(String(ref.kind))) errs.push(notSupported("roleRef.kind", ref.kind, kinds));
    if (typeof ref.name !== "string" || ref.name === "") errs.push(required("roleRef.name"));
    else {
      for (const msg of nameIsPathSegment(ref.name, false)) {
        errs.push(invalid("roleRef.name", ref.name, msg));
      }
    }
  }
  // The schema makes subjects a list of objects with string fields.
  const subjects: unknown[] = Array.isArray(obj.subjects) ? obj.subjects : [];
  subjects.forEach((s, i) => {
    const f = `subjects[${i}]`;
    if (!isObject(s)) return;
    if (!s.name) errs.push(required(`${f}.name`));
    switch (s.kind) {
      case "ServiceAccount":
        if (s.apiGroup) errs.push(notSupported(`${f}.apiGroup`, s.apiGroup, [""]));
        if (!namespaced && !s.namespace) errs.push(required(`${f}.namespace`));
        break;
      case "User":
      case "Group":
        if (s.apiGroup !== RBAC_GROUP) {
          errs.push(notSupported(`${f}.apiGroup`, s.apiGroup ?? "", [RBAC_GROUP]));
        }
        break;
      default:
        errs.push(notSupported(`${f}.kind`, s.kind, ["ServiceAccount", "User", "Group"]));
    }
  });
  return errs;
}

/** The update rule of bindings: roleRef cannot change. */
export function validateBindingUpdate(
  obj: KubeObject,
  old: KubeObject,
  namespaced: boolean,
): FieldError[] {
  const errs = validateBinding(obj, namespaced);
  if (JSON.stringify(obj.roleRef) !== JSON.stringify(old.roleRef)) {
    errs.push(invalid("roleRef", obj.roleRef, "cannot change roleRef"));
  }
  return errs;
}
