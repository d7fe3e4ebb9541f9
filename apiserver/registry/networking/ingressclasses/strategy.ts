/**
 * IngressClass (networking.k8s.io/v1, cluster-scoped): the controller implementing a class of
 * Ingresses and its parameters. Defaults, validation and columns as Kubernetes 1.32's.
 *
 * @module
 */
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import {
  isDNS1123Subdomain,
  isValidPathSegmentName,
} from "../../../../shared/api/validation/identifiers.ts";
import { validateNamespaceName } from "../../../../shared/api/validation/name_validators.ts";
import { validateDomainPrefixedPath } from "../../../../shared/api/validation/network_addresses.ts";
import {
  forbidden,
  invalid,
  notSupported,
  required,
  tooLong,
} from "../../../../shared/api/validation/field_errors.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import type { KindDef, TableColumns } from "../../generic/kind.ts";
import { AGE_COLUMN, ageOf, column, NAME_COLUMN, objectOf } from "../../generic/table_columns.ts";
import { immutable } from "../../apps/workload.ts";

const MAX_CONTROLLER_LENGTH = 250;
const SCOPES = ["Cluster", "Namespace"];

/** The annotation marking the class new Ingresses without one get. */
export const DEFAULT_INGRESS_CLASS_ANNOTATION = "ingressclass.kubernetes.io/is-default-class";

function validateParameters(p: Record<string, unknown>): FieldError[] {
  const f = "spec.parameters";
  const errs: FieldError[] = [];
  if (typeof p.apiGroup === "string") {
    for (const m of isDNS1123Subdomain(p.apiGroup)) {
      errs.push(invalid(`${f}.apiGroup`, p.apiGroup, m));
    }
  }
  for (const key of ["kind", "name"]) {
    const v = typeof p[key] === "string" ? p[key] as string : "";
    if (v === "") errs.push(required(`${f}.${key}`));
    else for (const m of isValidPathSegmentName(v)) errs.push(invalid(`${f}.${key}`, v, m));
  }
  if (p.scope === undefined) return [...errs, required(`${f}.scope`)];
  if (!SCOPES.includes(String(p.scope))) {
    return [...errs, notSupported(`${f}.scope`, p.scope, SCOPES)];
  }
  if (p.scope === "Namespace") {
    if (typeof p.namespace !== "string") {
      errs.push(required(`${f}.namespace`, "`parameters.scope` is set to 'Namespace'"));
    } else {
      for (const m of validateNamespaceName(p.namespace, false)) {
        errs.push(invalid(`${f}.namespace`, p.namespace, m));
      }
    }
  } else if (p.namespace !== undefined) {
    errs.push(forbidden(`${f}.namespace`, "`parameters.scope` is set to 'Cluster'"));
  }
  return errs;
}

/** ValidateIngressClass's spec part. */
function validateSpec(obj: KubeObject): FieldError[] {
  const spec = objectOf(obj.spec);
  const errs: FieldError[] = [];
  const controller = typeof spec.controller === "string" ? spec.controller : "";
  if (controller === "") errs.push(required("spec.controller"));
  else {
    if (controller.length > MAX_CONTROLLER_LENGTH) {
      errs.push(
        tooLong(
          "spec.controller",
          undefined,
          `may not be more than ${MAX_CONTROLLER_LENGTH} bytes`,
        ),
      );
    }
    errs.push(...validateDomainPrefixedPath("spec.controller", controller));
  }
  if (isObject(spec.parameters)) errs.push(...validateParameters(spec.parameters));
  return errs;
}

function setDefaults(obj: KubeObject): void {
  const params = objectOf(obj.spec).parameters;
  if (isObject(params)) params.scope ??= "Cluster";
}

const INGRESS_CLASS_COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    column("Controller", "string", "Controller that is responsible for handling this class"),
    column("Parameters", "string", "A reference to a resource with additional parameters"),
    AGE_COLUMN,
  ],
  cells(o, now) {
    const spec = objectOf(o.spec);
    let parameters = "<none>";
    if (isObject(spec.parameters)) {
      const p = spec.parameters;
      parameters = String(p.kind ?? "");
      if (typeof p.apiGroup === "string") parameters += `.${p.apiGroup}`;
      parameters += `/${p.name ?? ""}`;
    }
    return [o.metadata?.name ?? "", String(spec.controller ?? ""), parameters, ageOf(o, now)];
  },
};

/** The IngressClass kind. */
export const ingressClassKind: KindDef = {
  group: "networking.k8s.io",
  version: "v1",
  kind: "IngressClass",
  plural: "ingressclasses",
  singular: "ingressclass",
  namespaced: false,
  strategy: {
    tableColumns: INGRESS_CLASS_COLUMNS,
    prepareForCreate: setDefaults,
    prepareForUpdate: setDefaults,
    validate: validateSpec,
    validateUpdate(obj, old) {
      return [
        ...immutable(
          "spec.controller",
          objectOf(obj.spec).controller,
          objectOf(old.spec).controller,
        ),
        ...validateSpec(obj),
      ];
    },
  },
};
