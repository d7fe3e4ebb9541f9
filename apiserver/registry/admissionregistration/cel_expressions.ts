/**
 * Compiling the CEL expressions of webhook match conditions and admission policies at validation
 * time, as Kubernetes does: the variables an expression may use depend on where it sits (params
 * only with a param kind, `variables` only when the policy declares some, no authorizer in
 * message expressions), and the result type must fit (bool conditions, string messages).
 *
 * @module
 */
import type { FieldError } from "../../../shared/errors/status_error.ts";
import { invalid } from "../../../shared/api/validation/field_errors.ts";
import { CelEnvironment, type CelVariable } from "../../cel/mod.ts";
import { ADMISSION_REQUEST_SCHEMA } from "../../cel/contexts.ts";

/** Which optional variables an expression may use. */
export interface ExpressionScope {
  /** `params` (the policy has a param kind, or a policy's match condition). */
  params: boolean;
  /** `variables` (the policy declares variables). */
  variables: boolean;
  /** `authorizer` and `authorizer.requestResource` (all but message expressions). */
  authorizer: boolean;
}

/** What an expression must evaluate to. */
export type ExpressionResult = "bool" | "string" | "string or null" | "any";

/** Builds the environments of the scopes as they are first needed and keeps them. */
export class AdmissionExpressionCompiler {
  readonly #envs = new Map<string, CelEnvironment>();

  #env(scope: ExpressionScope): CelEnvironment {
    const key = `${scope.params}/${scope.variables}/${scope.authorizer}`;
    let env = this.#envs.get(key);
    if (!env) {
      const variables: CelVariable[] = [
        { name: "object" },
        { name: "oldObject" },
        { name: "namespaceObject" },
        { name: "request", schema: ADMISSION_REQUEST_SCHEMA, escapeNames: false },
      ];
      if (scope.params) variables.push({ name: "params" });
      if (scope.variables) {
        variables.push({ name: "variables", type: "map<string, dyn>" });
      }
      env = CelEnvironment.create({ variables, authorizer: scope.authorizer });
      this.#envs.set(key, env);
    }
    return env;
  }

  /**
   * Compiles `expression` (at `field`) in `scope`; a compile error or a result of the wrong
   * type is an Invalid field error with Kubernetes' wording.
   */
  check(
    field: string,
    expression: string,
    scope: ExpressionScope,
    result: ExpressionResult,
  ): FieldError[] {
    const compiled = this.#env(scope).compile(expression);
    if (!compiled.ok) {
      const issues = compiled.errors.map((e) => `ERROR: ${e.detail}`).join("\n");
      return [invalid(field, expression, `compilation failed: ${issues}`)];
    }
    const got = compiled.program.outputType;
    if (result === "any" || got === "dyn") return [];
    if (result === "string or null" ? got === "string" || got === "null" : got === result) {
      return [];
    }
    const want = result === "string or null" ? "one of [string null_type]" : result;
    return [invalid(field, expression, `must evaluate to ${want} but got ${got}`)];
  }
}
