/**
 * Type checking of ValidatingAdmissionPolicies, as Kubernetes' TypeChecker does for the
 * policy status: the kinds the match constraints name (no wildcards, no subresources, at most
 * ten, sorted by group, version and kind) are looked up in the schema model, and each
 * validation's expression and message expression is compiled with `object` and `oldObject`
 * typed from each kind's schema (and `params` from the param kind's). Every compile error
 * becomes an expression warning: `<group>/<version>, Kind=<kind>: ERROR: ...` per kind.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import type { FieldSchema, SchemaModel } from "../../../shared/api/schema/model.ts";
import { isObject } from "../../../shared/json/is_object.ts";
import { CelEnvironment, type CelSchema } from "../../cel/mod.ts";
import { ADMISSION_REQUEST_SCHEMA } from "../../cel/contexts.ts";
import type { GroupVersionKind } from "../matching/rules.ts";

/** Kubernetes' `maxTypesToCheck`. */
const MAX_TYPES = 10;
/** Nesting followed into recursive types (JSONSchemaProps) before they become dynamic. */
const MAX_DEPTH = 12;

/** A warning of the policy status (`status.typeChecking.expressionWarnings[*]`). */
export interface ExpressionWarning {
  fieldRef: string;
  warning: string;
}

/** Finds the kinds a group, version and resource are served as. */
export type KindsFor = (group: string, version: string, resource: string) => GroupVersionKind[];

function fieldToCel(model: SchemaModel, f: FieldSchema, depth: number): CelSchema {
  const r = model.resolve(f);
  switch (r.type) {
    case "string":
      return { type: "string", ...(r.format ? { format: r.format } : {}) };
    case "boolean":
    case "integer":
    case "number":
      return { type: r.type };
    case "intOrString":
    case "quantity":
      return { "x-kubernetes-int-or-string": true };
    case "array":
      return { type: "array", items: r.items ? fieldToCel(model, r.items, depth + 1) : {} };
    case "map":
      return {
        type: "object",
        additionalProperties: r.values ? fieldToCel(model, r.values, depth + 1) : {},
      };
    case "ref":
      return typeToCel(model, r.ref ?? "", depth + 1);
    default:
      return { type: "object", "x-kubernetes-preserve-unknown-fields": true };
  }
}

/** The CEL schema of a named type of the model (dynamic beyond the depth limit). */
export function typeToCel(model: SchemaModel, name: string, depth = 0): CelSchema {
  const t = model.type(name);
  if (!t || depth > MAX_DEPTH) {
    return { type: "object", "x-kubernetes-preserve-unknown-fields": true };
  }
  if (t.scalar) return fieldToCel(model, t.scalar, depth);
  const properties: Record<string, CelSchema> = {};
  for (const [k, f] of Object.entries(t.properties)) properties[k] = fieldToCel(model, f, depth);
  const out: CelSchema = { type: "object", properties };
  if (t.preserveUnknownFields) out["x-kubernetes-preserve-unknown-fields"] = true;
  return out;
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

function compareGvk(a: GroupVersionKind, b: GroupVersionKind): number {
  const c = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  return c(a.group, b.group) || c(a.version, b.version) || c(a.kind, b.kind);
}

/** typesToCheck: the kinds named by the policy's resource rules, sorted, at most ten. */
export function typesToCheck(policy: KubeObject, kindsFor: KindsFor): GroupVersionKind[] {
  const spec = isObject(policy.spec) ? policy.spec : {};
  const mc = isObject(spec.matchConstraints) ? spec.matchConstraints : {};
  const found = new Map<string, GroupVersionKind>();
  let count = 0;
  for (const rule of Array.isArray(mc.resourceRules) ? mc.resourceRules.filter(isObject) : []) {
    const groups = strings(rule.apiGroups), versions = strings(rule.apiVersions);
    if (groups.some((g) => g.includes("*")) || versions.some((v) => v.includes("*"))) continue;
    const resources = strings(rule.resources).filter((r) => !/[*/]/.test(r));
    for (const g of [...groups].sort()) {
      for (const v of [...versions].sort()) {
        for (const r of [...resources].sort()) {
          for (const gvk of kindsFor(g, v, r)) {
            found.set(`${gvk.group}/${gvk.version}/${gvk.kind}`, gvk);
            if (++count === MAX_TYPES) return [...found.values()].sort(compareGvk);
          }
        }
      }
    }
  }
  return [...found.values()].sort(compareGvk);
}

const OPERATORS: Record<string, string> = {
  "+": "_+_",
  "-": "_-_",
  "*": "_*_",
  "/": "_/_",
  "%": "_%_",
  "<": "_<_",
  "<=": "_<=_",
  ">": "_>_",
  ">=": "_>=_",
  "==": "_==_",
  "!=": "_!=_",
};

/** cel-go's wording of the checker errors Kubernetes prints in policy status. */
export function celGoWording(detail: string): string {
  return detail
    .replace(/No such key: ([^\s]+)/, "undefined field '$1'")
    .replace(
      /no such overload: (\S+) (\+|-|\*|\/|%|<=?|>=?|==|!=) (\S+)/,
      (_m, a, op, b) =>
        `found no matching overload for '${OPERATORS[op]}' applied to '(${a}, ${b})'`,
    );
}

function gvkString(g: GroupVersionKind): string {
  return `${g.group}/${g.version}, Kind=${g.kind}`;
}

/** Compiles policy expressions against the kinds' schemas. */
export class PolicyTypeChecker {
  readonly #envs = new Map<string, CelEnvironment>();

  constructor(readonly model: SchemaModel, readonly kindsFor: KindsFor) {}

  #schemaOf(g: GroupVersionKind): CelSchema | undefined {
    const t = this.model.kind(g.group, g.version, g.kind);
    return t ? typeToCel(this.model, t.name) : undefined;
  }

  #env(object: GroupVersionKind, params: GroupVersionKind | undefined): CelEnvironment {
    const key = `${gvkString(object)}|${params ? gvkString(params) : ""}`;
    let env = this.#envs.get(key);
    if (!env) {
      const schema = this.#schemaOf(object);
      const ns = this.#schemaOf({ group: "", version: "v1", kind: "Namespace" });
      env = CelEnvironment.create({
        variables: [
          { name: "object", schema },
          { name: "oldObject", schema },
          { name: "params", schema: params ? this.#schemaOf(params) : undefined },
          { name: "namespaceObject", schema: ns },
          { name: "variables", type: "map<string, dyn>" },
          { name: "request", schema: ADMISSION_REQUEST_SCHEMA, escapeNames: false },
        ],
        authorizer: true,
      });
      this.#envs.set(key, env);
    }
    return env;
  }

  /** The expression warnings of `policy` (empty when everything type checks). */
  check(policy: KubeObject): ExpressionWarning[] {
    const spec = isObject(policy.spec) ? policy.spec : {};
    const pk = isObject(spec.paramKind) ? spec.paramKind : undefined;
    let params: GroupVersionKind | undefined;
    if (pk && typeof pk.apiVersion === "string" && typeof pk.kind === "string") {
      const [group, version] = pk.apiVersion.includes("/")
        ? pk.apiVersion.split("/", 2)
        : ["", pk.apiVersion];
      params = { group, version, kind: pk.kind };
    }
    const kinds = typesToCheck(policy, this.kindsFor).filter((g) => this.#schemaOf(g));
    const warnings: ExpressionWarning[] = [];
    const checkOne = (fieldRef: string, expression: string) => {
      const messages: string[] = [];
      for (const g of kinds) {
        const c = this.#env(g, params).compile(expression);
        if (c.ok) continue;
        messages.push(
          `${gvkString(g)}: ${
            c.errors.map((e) => `ERROR: ${celGoWording(e.detail)}`).join("\n")
          }\n`,
        );
      }
      if (messages.length > 0) warnings.push({ fieldRef, warning: messages.join("\n") });
    };
    const validations = Array.isArray(spec.validations) ? spec.validations.filter(isObject) : [];
    for (const [i, v] of validations.entries()) {
      checkOne(`spec.validations[${i}].expression`, String(v.expression ?? ""));
      if (typeof v.messageExpression === "string" && v.messageExpression) {
        checkOne(`spec.validations[${i}].messageExpression`, v.messageExpression);
      }
    }
    return warnings;
  }
}
