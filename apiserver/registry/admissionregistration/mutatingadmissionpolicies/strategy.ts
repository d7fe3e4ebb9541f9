/**
 * MutatingAdmissionPolicy and MutatingAdmissionPolicyBinding (admissionregistration.k8s.io/
 * v1alpha1, alpha in kube 1.32 and off by default), stored as written: defaults, validation
 * and columns as kube's. This server stores them; it does not apply their mutations.
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import { invalid, notSupported, required } from "../../../../shared/api/validation/field_errors.ts";
import { isDNS1123Subdomain } from "../../../../shared/api/validation/identifiers.ts";
import type { KindDef, TableColumns } from "../../generic/kind.ts";
import { listOf } from "../../generic/table_columns.ts";
import { AdmissionExpressionCompiler } from "../cel_expressions.ts";
import {
  FAILURE_POLICIES,
  oneOf,
  stringOf,
  validateMatchConditions,
  validateMatchResources,
} from "../rules.ts";
import {
  defaultMatchResources,
  defaultPolicySpec,
  policyColumns,
  specOf,
  validateParamKind,
  validateParamRef,
} from "../policy_parts.ts";
import { validateVariables } from "../validatingadmissionpolicies/strategy.ts";
import { BINDING_COLUMNS } from "../validatingadmissionpolicybindings/strategy.ts";

const PATCH_TYPES = ["ApplyConfiguration", "JSONPatch"];
const REINVOCATION_POLICIES = ["IfNeeded", "Never"];

/** MutatingAdmissionPolicy: Name, Mutations, ParamKind, Age. */
const POLICY_COLUMNS: TableColumns = policyColumns({
  name: "Mutations",
  field: "mutations",
  description: "Mutations indicates the number of mutations rules defined in this configuration",
});

/** validateMutation: the patch type's own member, with an expression; not the other. */
function validateMutation(f: string, m: Record<string, unknown>): FieldError[] {
  const own = m.patchType === "JSONPatch" ? "jsonPatch" : "applyConfiguration";
  const other = own === "jsonPatch" ? "applyConfiguration" : "jsonPatch";
  if (!PATCH_TYPES.includes(String(m.patchType))) {
    return [notSupported(`${f}.patchType`, m.patchType ?? "", PATCH_TYPES)];
  }
  const errs: FieldError[] = [];
  const member = m[own];
  if (!isObject(member)) {
    errs.push(required(`${f}.${own}`, `must be specified when patchType is ${m.patchType}`));
  } else if ((stringOf(member.expression) ?? "").trim() === "") {
    errs.push(required(`${f}.${own}.expression`));
  }
  if (m[other] !== undefined && m[other] !== null) {
    errs.push(
      invalid(
        `${f}.${other}`,
        `{${other}}`,
        `must not be specified when patchType is ${m.patchType}`,
      ),
    );
  }
  return errs;
}

/** The match constraints: required, with resource rules of CREATE and UPDATE only. */
function validateConstraints(mc: unknown): FieldError[] {
  if (!isObject(mc)) return [required("spec.matchConstraints")];
  const errs = validateMatchResources("spec.matchConstraints", mc);
  const rules = listOf(mc.resourceRules);
  if (rules.length === 0) errs.push(required("spec.matchConstraints.resourceRules"));
  for (const [i, rule] of rules.entries()) {
    for (const [j, op] of (Array.isArray(rule.operations) ? rule.operations : []).entries()) {
      if (op === "DELETE" || op === "CONNECT") {
        errs.push(
          notSupported(`spec.matchConstraints.resourceRules[${i}].operations[${j}]`, op, [
            "CREATE",
            "UPDATE",
          ]),
        );
      }
    }
  }
  return errs;
}

/** validateMutatingAdmissionPolicySpec. */
function validatePolicy(obj: KubeObject, compiler: AdmissionExpressionCompiler): FieldError[] {
  const spec = specOf(obj), errs: FieldError[] = [];
  if (spec.failurePolicy === undefined || spec.failurePolicy === null) {
    errs.push(required("spec.failurePolicy"));
  } else errs.push(...oneOf("spec.failurePolicy", spec.failurePolicy, FAILURE_POLICIES));
  const hasParams = isObject(spec.paramKind);
  if (hasParams) errs.push(...validateParamKind("spec.paramKind", spec.paramKind));
  errs.push(...validateConstraints(spec.matchConstraints));
  const scope = { params: hasParams, variables: false, authorizer: true };
  errs.push(
    ...validateMatchConditions("spec.matchConditions", spec.matchConditions, compiler, scope),
  );
  errs.push(...validateVariables(spec, { ...scope, variables: true }, compiler));
  const mutations = listOf(spec.mutations);
  if (mutations.length === 0) {
    errs.push(required("spec.mutations", "mutations must contain at least one item"));
  }
  for (const [i, m] of mutations.entries()) {
    errs.push(...validateMutation(`spec.mutations[${i}]`, m));
  }
  const reinvocation = stringOf(spec.reinvocationPolicy) ?? "";
  if (reinvocation === "") errs.push(required("spec.reinvocationPolicy"));
  else if (!REINVOCATION_POLICIES.includes(reinvocation)) {
    errs.push(notSupported("spec.reinvocationPolicy", reinvocation, REINVOCATION_POLICIES));
  }
  return errs;
}

/** validateMutatingAdmissionPolicyBindingSpec. */
function validateBinding(obj: KubeObject): FieldError[] {
  const spec = specOf(obj), errs: FieldError[] = [];
  const policyName = stringOf(spec.policyName) ?? "";
  if (policyName === "") errs.push(required("spec.policyName"));
  else {
    errs.push(
      ...isDNS1123Subdomain(policyName).map((m) => invalid("spec.policyName", policyName, m)),
    );
  }
  errs.push(...validateParamRef("spec.paramRef", spec.paramRef));
  errs.push(...validateMatchResources("spec.matchResources", spec.matchResources));
  return errs;
}

/** SetDefaults_ParamRef (v1alpha1) and SetDefaults_MatchResources. */
function setBindingDefaults(obj: KubeObject): void {
  const spec = specOf(obj);
  if (isObject(spec.paramRef)) spec.paramRef.parameterNotFoundAction ??= "Deny";
  defaultMatchResources(spec.matchResources);
}

function policyKind(): KindDef {
  const compiler = new AdmissionExpressionCompiler();
  return {
    group: "admissionregistration.k8s.io",
    version: "v1alpha1",
    kind: "MutatingAdmissionPolicy",
    plural: "mutatingadmissionpolicies",
    singular: "mutatingadmissionpolicy",
    namespaced: false,
    categories: ["api-extensions"],
    strategy: {
      tableColumns: POLICY_COLUMNS,
      prepareForCreate: defaultPolicySpec,
      prepareForUpdate: defaultPolicySpec,
      validate: (obj) => validatePolicy(obj, compiler),
    },
  };
}

/** The MutatingAdmissionPolicy kind. */
export const mutatingAdmissionPolicyKind: KindDef = policyKind();

/** The MutatingAdmissionPolicyBinding kind. */
export const mutatingAdmissionPolicyBindingKind: KindDef = {
  group: "admissionregistration.k8s.io",
  version: "v1alpha1",
  kind: "MutatingAdmissionPolicyBinding",
  plural: "mutatingadmissionpolicybindings",
  singular: "mutatingadmissionpolicybinding",
  namespaced: false,
  categories: ["api-extensions"],
  strategy: {
    tableColumns: BINDING_COLUMNS,
    prepareForCreate: setBindingDefaults,
    prepareForUpdate: setBindingDefaults,
    validate: validateBinding,
  },
};
