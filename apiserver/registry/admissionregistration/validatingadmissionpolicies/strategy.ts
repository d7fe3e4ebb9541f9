/**
 * ValidatingAdmissionPolicy (admissionregistration.k8s.io/v1): CEL validations, audit
 * annotations, match conditions and variables, compiled when the policy is written. The status
 * (type checking) is stored as written through the status subresource.
 *
 * @module
 */
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { deepEqual } from "../../../../shared/json/deep_equal.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import {
  duplicate,
  invalid,
  notSupported,
  required,
} from "../../../../shared/api/validation/field_errors.ts";
import { type KindDef, STATUS_SUBRESOURCE, type TableColumns } from "../../generic/kind.ts";
import { listOf } from "../../generic/table_columns.ts";
import { AdmissionExpressionCompiler, type ExpressionScope } from "../cel_expressions.ts";
import {
  FAILURE_POLICIES,
  oneOf,
  qualifiedName,
  stringOf,
  validateMatchConditions,
  validateMatchResources,
} from "../rules.ts";
import { defaultPolicySpec, policyColumns, specOf, validateParamKind } from "../policy_parts.ts";

const REASONS = ["Forbidden", "Invalid", "RequestEntityTooLarge"];
const MAX_AUDIT_ANNOTATIONS = 20;
const MAX_VALUE_EXPRESSION_BYTES = 5 * 1024;
const CEL_IDENTIFIER = /^[_a-zA-Z][_a-zA-Z0-9]*$/;
const CEL_RESERVED = new Set(
  "true false null in as break const continue else for function if import let loop package namespace return var void while"
    .split(" "),
);

/** ValidatingAdmissionPolicy: Name, Validations, ParamKind, Age. */
const POLICY_COLUMNS: TableColumns = policyColumns({
  name: "Validations",
  field: "validations",
  description: "Validations indicates the number of validation rules defined in this configuration",
});

function trimmed(v: unknown): string {
  return (stringOf(v) ?? "").trim();
}

/** validateVariables: named CEL variables (shared with MutatingAdmissionPolicy). */
export function validateVariables(
  spec: Record<string, unknown>,
  scope: ExpressionScope,
  compiler: AdmissionExpressionCompiler,
): FieldError[] {
  const errs: FieldError[] = [];
  for (const [i, v] of listOf(spec.variables).entries()) {
    const f = `spec.variables[${i}]`, name = stringOf(v.name) ?? "";
    if (name.trim() === "") errs.push(required(`${f}.name`, "name is not specified"));
    else if (!CEL_IDENTIFIER.test(name) || CEL_RESERVED.has(name)) {
      errs.push(invalid(`${f}.name`, name, "name is not a valid CEL identifier"));
    }
    const expression = stringOf(v.expression) ?? "";
    if (expression.trim() === "") {
      errs.push(required(`${f}.expression`, "expression is not specified"));
    } else errs.push(...compiler.check(`${f}.expression`, expression, scope, "any"));
  }
  return errs;
}

function validateValidation(
  f: string,
  v: Record<string, unknown>,
  scope: ExpressionScope,
  compiler: AdmissionExpressionCompiler,
): FieldError[] {
  const errs: FieldError[] = [];
  const expression = stringOf(v.expression) ?? "";
  if (expression.trim() === "") {
    errs.push(required(`${f}.expression`, "expression is not specified"));
  } else errs.push(...compiler.check(`${f}.expression`, expression, scope, "bool"));
  const messageExpression = stringOf(v.messageExpression) ?? "";
  if (messageExpression !== "" && messageExpression.trim() === "") {
    errs.push(
      invalid(`${f}.messageExpression`, messageExpression, "must be non-empty if specified"),
    );
  } else if (messageExpression !== "") {
    const messageScope = { ...scope, authorizer: false };
    errs.push(
      ...compiler.check(`${f}.messageExpression`, messageExpression, messageScope, "string"),
    );
  }
  const message = stringOf(v.message) ?? "";
  if (message !== "" && message.trim() === "") {
    errs.push(invalid(`${f}.message`, message, "message must be non-empty if specified"));
  } else if (/[\n\r]/.test(message.trim())) {
    errs.push(invalid(`${f}.message`, message, "message must not contain line breaks"));
  }
  if (v.reason !== undefined && v.reason !== null && !REASONS.includes(v.reason as string)) {
    errs.push(notSupported(`${f}.reason`, v.reason, REASONS));
  }
  return errs;
}

function validateAuditAnnotations(
  obj: KubeObject,
  scope: ExpressionScope,
  compiler: AdmissionExpressionCompiler,
): FieldError[] {
  const spec = specOf(obj), list = listOf(spec.auditAnnotations);
  const errs: FieldError[] = [];
  if (list.length > MAX_AUDIT_ANNOTATIONS) {
    errs.push(
      invalid(
        "spec.auditAnnotations",
        spec.auditAnnotations,
        `must not have more than ${MAX_AUDIT_ANNOTATIONS} auditAnnotations`,
      ),
    );
  }
  const keys = new Set<string>(), name = obj.metadata?.name ?? "";
  for (const [i, a] of list.entries()) {
    const f = `spec.auditAnnotations[${i}]`, key = stringOf(a.key) ?? "";
    if (name !== "") errs.push(...qualifiedName(`${f}.key`, `${name}/${key}`));
    else errs.push(invalid(`${f}.key`, key, "requires metadata.name be non-empty"));
    const value = trimmed(a.valueExpression);
    if (value === "") {
      errs.push(required(`${f}.valueExpression`, "valueExpression is not specified"));
    } else if (new TextEncoder().encode(value).length > MAX_VALUE_EXPRESSION_BYTES) {
      errs.push(
        required(
          `${f}.valueExpression`,
          `must not exceed ${MAX_VALUE_EXPRESSION_BYTES} bytes in length`,
        ),
      );
    } else {
      errs.push(...compiler.check(`${f}.valueExpression`, value, scope, "string or null"));
    }
    if (keys.has(key)) errs.push(duplicate(`${f}.key`, key));
    keys.add(key);
  }
  return errs;
}

/** validateValidatingAdmissionPolicySpec; `ignoreMatchConditions` on unchanged updates. */
function validatePolicy(
  obj: KubeObject,
  ignoreMatchConditions: boolean,
  compiler: AdmissionExpressionCompiler,
): FieldError[] {
  const spec = specOf(obj);
  const errs: FieldError[] = [];
  if (spec.failurePolicy === undefined || spec.failurePolicy === null) {
    errs.push(required("spec.failurePolicy"));
  } else errs.push(...oneOf("spec.failurePolicy", spec.failurePolicy, FAILURE_POLICIES));
  const hasParams = isObject(spec.paramKind);
  if (hasParams) errs.push(...validateParamKind("spec.paramKind", spec.paramKind));
  if (!isObject(spec.matchConstraints)) errs.push(required("spec.matchConstraints"));
  else {
    errs.push(...validateMatchResources("spec.matchConstraints", spec.matchConstraints));
    if (listOf(spec.matchConstraints.resourceRules).length === 0) {
      errs.push(required("spec.matchConstraints.resourceRules"));
    }
  }
  if (!ignoreMatchConditions) {
    const scope = { params: hasParams, variables: false, authorizer: true };
    errs.push(
      ...validateMatchConditions("spec.matchConditions", spec.matchConditions, compiler, scope),
    );
  }
  const scope = {
    params: hasParams,
    variables: listOf(spec.variables).length > 0,
    authorizer: true,
  };
  errs.push(...validateVariables(spec, scope, compiler));
  const validations = listOf(spec.validations);
  if (validations.length === 0 && listOf(spec.auditAnnotations).length === 0) {
    const detail = "validations or auditAnnotations must contain at least one item";
    errs.push(required("spec.validations", detail), required("spec.auditAnnotations", detail));
    return errs;
  }
  for (const [i, v] of validations.entries()) {
    errs.push(...validateValidation(`spec.validations[${i}]`, v, scope, compiler));
  }
  errs.push(...validateAuditAnnotations(obj, scope, compiler));
  return errs;
}

/** Match conditions are not compiled again when neither they nor the param kind changed. */
function matchConditionsUnchanged(obj: KubeObject, old: KubeObject): boolean {
  const a = specOf(obj), b = specOf(old);
  return deepEqual(a.paramKind ?? null, b.paramKind ?? null) &&
    deepEqual(a.matchConditions ?? null, b.matchConditions ?? null);
}

/** Builds the kind with its own expression compiler. */
function policyKind(): KindDef {
  const compiler = new AdmissionExpressionCompiler();
  return {
    group: "admissionregistration.k8s.io",
    version: "v1",
    kind: "ValidatingAdmissionPolicy",
    plural: "validatingadmissionpolicies",
    singular: "validatingadmissionpolicy",
    namespaced: false,
    categories: ["api-extensions"],
    subresources: [STATUS_SUBRESOURCE],
    strategy: {
      tableColumns: POLICY_COLUMNS,
      prepareForCreate(obj) {
        defaultPolicySpec(obj);
        obj.status = {};
      },
      prepareForUpdate: defaultPolicySpec,
      validate: (obj) => validatePolicy(obj, false, compiler),
      validateUpdate: (obj, old) =>
        validatePolicy(obj, matchConditionsUnchanged(obj, old), compiler),
    },
  };
}

/** The ValidatingAdmissionPolicy kind. */
export const validatingAdmissionPolicyKind: KindDef = policyKind();
