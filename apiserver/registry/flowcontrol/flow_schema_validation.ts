/**
 * Validation of FlowSchemas as Kubernetes 1.32's flowcontrol validation does it: precedence in
 * [1, 10000] (1 only for `exempt`), a known distinguisher method, a valid priority level name,
 * rules with subjects and resource or non-resource rules, the mandatory schemas' fixed specs,
 * and conditions with unique, non-empty types.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import type { FieldError } from "../../../shared/errors/status_error.ts";
import {
  forbidden,
  invalid,
  notSupported,
  required,
} from "../../../shared/api/validation/field_errors.ts";
import {
  nameIsDNSSubdomain,
  validateNamespaceName,
} from "../../../shared/api/validation/name_validators.ts";
import { isObject } from "../../../shared/json/is_object.ts";
import { mandatoryFlowSchemas } from "./bootstrap_configuration.ts";
import { listOf, mandatorySpecProblem, objOf, validateConditions } from "./flowcontrol_fields.ts";

const VERBS = [
  "create",
  "delete",
  "deletecollection",
  "get",
  "list",
  "patch",
  "proxy",
  "update",
  "watch",
];
const SUBJECT_KINDS = ["Group", "ServiceAccount", "User"];
const NS_INTRO = "each member of this list must be '*' or a DNS-1123 label; ";

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.map(String) : [];
}

function validateVerbs(path: string, verbs: string[]): FieldError[] {
  if (verbs.length === 0) {
    return [required(`${path}.verbs`, "verbs must contain at least one value")];
  }
  if (verbs.includes("*")) {
    return verbs.length > 1
      ? [invalid(`${path}.verbs`, verbs, "if '*' is present, must not specify other verbs")]
      : [];
  }
  return verbs.every((v) => VERBS.includes(v)) ? [] : [notSupported(`${path}.verbs`, verbs, VERBS)];
}

/** Kubernetes' ValidateNonResourceURLPath. */
function urlProblem(url: string): string | undefined {
  if (url === "") return "must not be empty";
  if (url === "/") return undefined;
  if (!url.startsWith("/")) return "must start with slash";
  if (url.includes(" ")) return "must not contain white-space";
  if (url.includes("//")) return "must not contain double slash";
  const stars = url.split("*").length - 1;
  if (stars > 1 || (stars === 1 && !url.endsWith("/*"))) {
    return "wildcard can only do suffix glob matching";
  }
  return undefined;
}

function validateNonResourceRule(path: string, rule: Record<string, unknown>): FieldError[] {
  const errs = validateVerbs(path, strings(rule.verbs));
  const urls = strings(rule.nonResourceURLs);
  if (urls.length === 0) {
    errs.push(
      required(`${path}.nonResourceURLs`, "nonResourceURLs must contain at least one value"),
    );
  } else if (urls.includes("*")) {
    if (urls.length > 1) {
      errs.push(
        invalid(
          `${path}.nonResourceURLs`,
          urls,
          "if '*' is present, must not specify other non-resource URLs",
        ),
      );
    }
  } else {
    urls.forEach((u, i) => {
      const p = urlProblem(u);
      if (p) errs.push(invalid(`${path}.nonResourceURLs[${i}]`, u, p));
    });
  }
  return errs;
}

function validateList(path: string, field: string, values: string[], what: string): FieldError[] {
  if (values.length === 0) {
    return [required(`${path}.${field}`, `resource rules must supply at least one ${what}`)];
  }
  if (values.length > 1 && values.includes("*")) {
    return [
      invalid(`${path}.${field}`, values, `if '*' is present, must not specify other ${what}s`),
    ];
  }
  return [];
}

function validateResourceRule(path: string, rule: Record<string, unknown>): FieldError[] {
  const errs = validateVerbs(path, strings(rule.verbs));
  errs.push(...validateList(path, "apiGroups", strings(rule.apiGroups), "api group"));
  errs.push(...validateList(path, "resources", strings(rule.resources), "resource"));
  const namespaces = strings(rule.namespaces);
  if (namespaces.length === 0 && rule.clusterScope !== true) {
    errs.push(
      required(
        `${path}.namespaces`,
        "resource rules that are not cluster scoped must supply at least one namespace",
      ),
    );
  } else if (namespaces.includes("*")) {
    if (namespaces.length > 1) {
      errs.push(
        invalid(
          `${path}.namespaces`,
          namespaces,
          "if '*' is present, must not specify other namespaces",
        ),
      );
    }
  } else {
    namespaces.forEach((ns, i) => {
      for (const msg of validateNamespaceName(ns, false)) {
        errs.push(invalid(`${path}.namespaces[${i}]`, ns, NS_INTRO + msg));
      }
    });
  }
  return errs;
}

/** The member of a subject each kind uses. */
const KIND_OF_FIELD: Record<string, string> = {
  user: "User",
  group: "Group",
  serviceAccount: "ServiceAccount",
};

function validateNamed(path: string, v: unknown, what: string, kind: string): FieldError[] {
  if (!isObject(v)) return [required(path, `${what} is required when subject kind is '${kind}'`)];
  return v.name ? [] : [required(`${path}.name`)];
}

function validateServiceAccount(path: string, v: unknown): FieldError[] {
  if (!isObject(v)) {
    return [required(path, "serviceAccount is required when subject kind is 'ServiceAccount'")];
  }
  const errs: FieldError[] = [];
  const name = typeof v.name === "string" ? v.name : "";
  if (name === "") errs.push(required(`${path}.name`));
  else if (name !== "*") {
    for (const msg of nameIsDNSSubdomain(name, false)) {
      errs.push(invalid(`${path}.name`, name, msg));
    }
  }
  const ns = typeof v.namespace === "string" ? v.namespace : "";
  if (ns === "") {
    errs.push(required(`${path}.namespace`, "must specify namespace for service account"));
  }
  for (const msg of ns ? validateNamespaceName(ns, false) : []) {
    errs.push(invalid(`${path}.namespace`, ns, msg));
  }
  return errs;
}

function validateSubject(path: string, s: Record<string, unknown>): FieldError[] {
  const kind = String(s.kind ?? "");
  const own = kind === "User" ? "user" : kind === "Group" ? "group" : "serviceAccount";
  if (!SUBJECT_KINDS.includes(kind)) return [notSupported(`${path}.kind`, kind, SUBJECT_KINDS)];
  const errs = own === "serviceAccount"
    ? validateServiceAccount(`${path}.serviceAccount`, s.serviceAccount)
    : validateNamed(`${path}.${own}`, s[own], own, kind);
  for (const [field, fieldKind] of Object.entries(KIND_OF_FIELD)) {
    if (field !== own && s[field] !== undefined && s[field] !== null) {
      errs.push(
        forbidden(
          `${path}.${field}`,
          `${field} is forbidden when subject kind is not '${fieldKind}'`,
        ),
      );
    }
  }
  return errs;
}

function validateRule(path: string, rule: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  const subjects = listOf(rule.subjects);
  if (subjects.length === 0) {
    errs.push(required(`${path}.subjects`, "subjects must contain at least one value"));
  }
  subjects.forEach((s, i) => errs.push(...validateSubject(`${path}.subjects[${i}]`, s)));
  const resourceRules = listOf(rule.resourceRules);
  const nonResourceRules = listOf(rule.nonResourceRules);
  if (resourceRules.length === 0 && nonResourceRules.length === 0) {
    errs.push(
      required(path, "at least one of resourceRules and nonResourceRules has to be non-empty"),
    );
  }
  resourceRules.forEach((r, i) =>
    errs.push(...validateResourceRule(`${path}.resourceRules[${i}]`, r))
  );
  nonResourceRules.forEach((r, i) =>
    errs.push(...validateNonResourceRule(`${path}.nonResourceRules[${i}]`, r))
  );
  return errs;
}

function validateSpec(name: string, spec: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  const precedence = typeof spec.matchingPrecedence === "number" ? spec.matchingPrecedence : 0;
  if (precedence <= 0) {
    errs.push(invalid("spec.matchingPrecedence", precedence, "must be a positive value"));
  }
  if (precedence > 10000) {
    errs.push(invalid("spec.matchingPrecedence", precedence, "must not be greater than 10000"));
  }
  if (precedence === 1 && name !== "exempt") {
    errs.push(
      invalid(
        "spec.matchingPrecedence",
        precedence,
        "only the schema named 'exempt' may have matchingPrecedence 1",
      ),
    );
  }
  if (isObject(spec.distinguisherMethod)) {
    const type = spec.distinguisherMethod.type;
    if (type !== "ByNamespace" && type !== "ByUser") {
      errs.push(
        notSupported("spec.distinguisherMethod.type", spec.distinguisherMethod, [
          "ByNamespace",
          "ByUser",
        ]),
      );
    }
  }
  const pl = objOf(spec.priorityLevelConfiguration).name;
  if (typeof pl === "string" && pl !== "") {
    for (const msg of nameIsDNSSubdomain(pl, false)) {
      errs.push(invalid("spec.priorityLevelConfiguration.name", pl, msg));
    }
  } else {
    errs.push(required("spec.priorityLevelConfiguration.name", "must reference a priority level"));
  }
  listOf(spec.rules).forEach((r, i) => errs.push(...validateRule(`spec.rules[${i}]`, r)));
  return errs;
}

/** Validates a FlowSchema (create and update alike). */
export function validateFlowSchema(obj: KubeObject): FieldError[] {
  const name = obj.metadata.name ?? "";
  const spec = objOf(obj.spec);
  const errs = validateSpec(name, spec);
  const mandatory = mandatoryFlowSchemas().find((m) => m.metadata.name === name);
  if (mandatory) errs.push(...mandatorySpecProblem(name, spec, objOf(mandatory.spec), false));
  errs.push(...validateConditions(obj));
  return errs;
}
