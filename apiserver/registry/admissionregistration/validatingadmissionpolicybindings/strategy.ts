/**
 * ValidatingAdmissionPolicyBinding (admissionregistration.k8s.io/v1): which policy applies, with
 * which parameters, to which resources, and what a failed validation does.
 *
 * @module
 */
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import { invalid, required } from "../../../../shared/api/validation/field_errors.ts";
import { isDNS1123Subdomain } from "../../../../shared/api/validation/identifiers.ts";
import type { KindDef, TableColumns } from "../../generic/kind.ts";
import { AGE_COLUMN, ageOf, column, NAME_COLUMN } from "../../generic/table_columns.ts";
import { stringOf, validateMatchResources } from "../rules.ts";
import {
  defaultMatchResources,
  selectorText,
  specOf,
  validateParamRef,
  validateValidationActions,
} from "../policy_parts.ts";

function paramRefCell(ref: unknown): string {
  if (!isObject(ref)) return "<unset>";
  const name = stringOf(ref.name) ?? "", namespace = stringOf(ref.namespace) ?? "";
  if (name !== "") return namespace !== "" ? `${namespace}/${name}` : `*/${name}`;
  return isObject(ref.selector) ? selectorText(ref.selector) : "<unset>";
}

/** ValidatingAdmissionPolicyBinding: Name, PolicyName, ParamRef, Age. */
export const BINDING_COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    column(
      "PolicyName",
      "string",
      "PolicyName indicates the policy definition which the policy binding binded to",
    ),
    column(
      "ParamRef",
      "string",
      "ParamRef indicates the param resource which sets the configration param",
    ),
    AGE_COLUMN,
  ],
  cells(o, now) {
    const spec = specOf(o);
    return [
      o.metadata?.name ?? "",
      stringOf(spec.policyName) ?? "",
      paramRefCell(spec.paramRef),
      ageOf(o, now),
    ];
  },
};

/** validateValidatingAdmissionPolicyBindingSpec (its match resources path as Kubernetes spells it). */
function validateBinding(obj: KubeObject): FieldError[] {
  const spec = specOf(obj);
  const errs: FieldError[] = [];
  const policyName = stringOf(spec.policyName) ?? "";
  if (policyName === "") errs.push(required("spec.policyName"));
  else {
    for (const msg of isDNS1123Subdomain(policyName)) {
      errs.push(invalid("spec.policyName", policyName, msg));
    }
  }
  errs.push(...validateParamRef("spec.paramRef", spec.paramRef));
  errs.push(...validateMatchResources("spec.matchResouces", spec.matchResources));
  errs.push(...validateValidationActions("spec.validationActions", spec.validationActions));
  return errs;
}

function setDefaults(obj: KubeObject): void {
  defaultMatchResources(specOf(obj).matchResources);
}

/** The ValidatingAdmissionPolicyBinding kind. */
export const validatingAdmissionPolicyBindingKind: KindDef = {
  group: "admissionregistration.k8s.io",
  version: "v1",
  kind: "ValidatingAdmissionPolicyBinding",
  plural: "validatingadmissionpolicybindings",
  singular: "validatingadmissionpolicybinding",
  namespaced: false,
  categories: ["api-extensions"],
  strategy: {
    tableColumns: BINDING_COLUMNS,
    prepareForCreate: setDefaults,
    prepareForUpdate: setDefaults,
    validate: validateBinding,
  },
};
