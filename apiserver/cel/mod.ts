/**
 * The CEL expression language for the API server: environments per context, compile with type
 * checking and caching, evaluation with deterministic cost, Kubernetes' libraries, and JSON +
 * schema to CEL value conversion. Every use of the underlying library goes through here.
 *
 * @example
 * ```ts
 * const env = crdValidationEnvironment(schema);
 * const c = env.compile("self.replicas <= self.maxReplicas");
 * if (!c.ok) throw new Error(c.errors[0].detail);
 * const r = c.program.evaluate(env.activation({ self: obj, oldSelf: old }), { budget });
 * ```
 *
 * @module
 */
export { CelEnvironment } from "./environment.ts";
export type { CelEnvironmentOptions, CelVariable, CompileResult } from "./environment.ts";
export { CelProgram } from "./program.ts";
export type { EvalOptions, EvalResult } from "./program.ts";
export type { CostEstimate } from "./estimate.ts";
export { MAX_REQUEST_SIZE_BYTES } from "./estimate.ts";
export {
  CostBudget,
  PER_CALL_COST_LIMIT,
  RUNTIME_COST_BUDGET,
  STATIC_ESTIMATED_COST_LIMIT,
  STATIC_ESTIMATED_CRD_COST_LIMIT,
} from "./cost.ts";
export type { CelErrorCode, CelIssue, CelPosition } from "./errors.ts";
export { escapePropertyName, unescapePropertyName } from "./escaping.ts";
export { jsonToCel, parseGoDuration, toCelValue } from "./values.ts";
export type { CelSchema } from "./values.ts";
export {
  admissionPolicyEnvironment,
  authorizationMatchEnvironment,
  claimMappingEnvironment,
  crdValidationEnvironment,
  userValidationEnvironment,
} from "./contexts.ts";
export type { AdmissionPolicyOptions, CrdValidationOptions } from "./contexts.ts";
export { AuthorizerValue, serviceAccountUser } from "./library/authorizer.ts";
export type {
  CelAuthorizationAttributes,
  CelAuthorizationDecision,
  CelAuthorizer,
  CelAuthorizerUser,
} from "./library/authorizer.ts";
export { Quantity } from "./library/quantity.ts";
export { compileRe2, MAX_PATTERN_LENGTH, Re2, Re2SyntaxError } from "./library/re2.ts";
export { Duration, Optional, UnsignedInt } from "./library/runtime_types.ts";
export { formatValue } from "./library/format_value.ts";
