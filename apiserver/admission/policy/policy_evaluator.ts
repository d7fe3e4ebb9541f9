/**
 * Evaluating a compiled ValidatingAdmissionPolicy for one request and one param object, as
 * Kubernetes' validator does: match conditions (a false one skips the policy, an error follows
 * the failure policy), then every validation (false: deny with the message expression's, the
 * message's or "failed expression: ..." text and the reason), then the audit annotations.
 * Variables are evaluated lazily, at most once, when an expression first reads them. Each
 * expression may cost at most the per-call limit; all of them together at most the runtime
 * budget. Evaluation is synchronous and has no side effects (the caller may run it again).
 *
 * @module
 */
import {
  type AuthorizerValue,
  type CelEnvironment,
  type CelProgram,
  PER_CALL_COST_LIMIT,
  RUNTIME_COST_BUDGET,
} from "../../cel/mod.ts";
import { celError } from "../../cel/errors.ts";
import type { CompiledExpression, CompiledPolicy } from "./compiled_policy.ts";

/** The variables of one evaluation (JSON values). */
export interface EvaluationVariables {
  /** The AdmissionRequest (without objects). */
  request: unknown;
  object: unknown;
  oldObject: unknown;
  params: unknown;
  namespaceObject: unknown;
}

/** The variables converted to CEL values (see {@link celVariables}), and the authorizer. */
export interface EvaluationInput {
  /** `request`, `object`, `oldObject`, `params`, `namespaceObject` as CEL values. */
  vars: Record<string, unknown>;
  /** The `authorizer` variable (with `requestResource`), for all but message expressions. */
  authorizer?: AuthorizerValue;
}

/** Converts variables to CEL values once, for any number of evaluations. */
export function celVariables(
  env: CelEnvironment,
  vars: Partial<EvaluationVariables>,
): Record<string, unknown> {
  const out = env.activation(vars);
  for (const k of ["object", "oldObject", "params", "namespaceObject"]) out[k] ??= null;
  return out;
}

/** The outcome of one validation (or of a failure standing for all of them). */
export interface PolicyDecision {
  action: "admit" | "deny";
  /** True when the decision comes from an error (compile, evaluation, budget). */
  error: boolean;
  message: string;
  /** The validation's reason (denials of false validations only). */
  reason?: string;
}

/** An audit annotation: a value to publish, or an error (under failurePolicy Fail). */
export interface AuditAnnotationResult {
  key: string;
  value?: string;
  error?: string;
}

/** Everything one evaluation decided. */
export interface ValidateResult {
  decisions: PolicyDecision[];
  auditAnnotations: AuditAnnotationResult[];
}

const OUT_OF_BUDGET =
  "validation failed due to running out of cost budget, no further validation rules will be run";
/** Kubernetes' `MaxEvaluatedMessageExpressionSizeBytes`. */
const MAX_MESSAGE_BYTES = 5 * 1024;
const encoder = new TextEncoder();

class OutOfBudget extends Error {}

/** Runs expressions against one activation, charging the shared budget. */
class Run {
  remaining = RUNTIME_COST_BUDGET;
  composition = 0;
  readonly base: Record<string, unknown>;
  readonly withAuthz: Record<string, unknown>;

  constructor(policy: CompiledPolicy, input: EvaluationInput) {
    this.base = { ...input.vars };
    this.base.variables = this.#variables(policy);
    this.withAuthz = input.authorizer ? { ...this.base, authorizer: input.authorizer } : this.base;
  }

  /** `variables`: each evaluated on first read, its cost charged to the budget. */
  #variables(policy: CompiledPolicy): Record<string, unknown> {
    const vars: Record<string, unknown> = {};
    for (const v of policy.variables) {
      let done = false, value: unknown, failure: Error | undefined;
      Object.defineProperty(vars, v.name, {
        enumerable: true,
        get: () => {
          if (!done) {
            done = true;
            const r = this.#evalRaw(v.value, this.withAuthz);
            this.composition += r.cost;
            if (r.ok) value = r.value;
            else {
              failure = celError(
                "evaluation_error",
                `composited variable "${v.name}" fails to evaluate: ${r.message}`,
              );
            }
          }
          if (failure) throw failure;
          return value;
        },
      });
    }
    return vars;
  }

  #evalRaw(e: CompiledExpression, vars: Record<string, unknown>) {
    if (!e.program) {
      return { ok: false as const, message: `compilation error: ${e.error}`, cost: 0 };
    }
    const r = (e.program as CelProgram).evaluate(vars, { costLimit: PER_CALL_COST_LIMIT });
    if (r.ok) return { ok: true as const, value: r.value, cost: r.cost };
    const msg = r.error.code === "cost_limit_exceeded"
      ? "operation cancelled: actual cost limit exceeded"
      : r.error.message;
    return { ok: false as const, message: msg, cost: r.cost };
  }

  /** Evaluates one expression; a result or Kubernetes' error text. Throws OutOfBudget. */
  eval(e: CompiledExpression, authz: boolean): { value?: unknown; error?: string } {
    if (!e.program) return { error: `compilation error: ${e.error}` };
    this.composition = 0;
    const r = this.#evalRaw(e, authz ? this.withAuthz : this.base);
    this.remaining -= r.cost + this.composition;
    if (this.remaining < 0) throw new OutOfBudget();
    if (r.ok) return { value: r.value };
    return { error: `expression '${e.expression}' resulted in error: ${r.message}` };
  }
}

function failure(policy: CompiledPolicy, message: string): PolicyDecision {
  return { action: policy.failurePolicy === "Ignore" ? "admit" : "deny", error: true, message };
}

/** Match conditions: true (evaluate), false (skip) or an error message. */
function matchConditions(policy: CompiledPolicy, run: Run): boolean | string {
  const errors: string[] = [];
  for (const mc of policy.matchConditions) {
    const r = run.eval(mc.check, true);
    if (r.error !== undefined) errors.push(r.error);
    else if (r.value === false) return false;
  }
  if (errors.length === 0) return true;
  return errors.length === 1 ? errors[0] : `[${errors.join(", ")}]`;
}

function messageOf(run: Run, v: CompiledPolicy["validations"][number]): string {
  let message = "";
  if (v.messageExpression) {
    const r = run.eval(v.messageExpression, false);
    if (typeof r.value === "string") {
      message = r.value.trim();
      if (encoder.encode(message).length > MAX_MESSAGE_BYTES || message.includes("\n")) {
        message = "";
      }
    }
  }
  if (!message && v.message.trim()) message = v.message.trim();
  return message || `failed expression: ${v.check.expression.trim()}`;
}

function celTypeName(v: unknown): string {
  if (typeof v === "bigint") return "int";
  if (typeof v === "number") return "double";
  if (typeof v === "boolean") return "bool";
  if (Array.isArray(v)) return "list";
  return typeof v === "object" ? "map" : typeof v;
}

function auditAnnotations(policy: CompiledPolicy, run: Run): AuditAnnotationResult[] {
  const out: AuditAnnotationResult[] = [];
  for (const a of policy.auditAnnotations) {
    const r = run.eval(a.value, false);
    if (r.error !== undefined) {
      if (policy.failurePolicy !== "Ignore") out.push({ key: a.key, error: r.error });
    } else if (typeof r.value === "string") {
      if (r.value.trim()) out.push({ key: a.key, value: r.value.trim() });
    } else if (r.value !== null) {
      out.push({
        key: a.key,
        error: `valueExpression '${a.value.expression}' resulted in unsupported return type: ` +
          `${celTypeName(r.value)}. Return type must be either string or null.`,
      });
    }
  }
  return out;
}

/** The validations' decisions; message expressions spend what the validations left. */
function validations(policy: CompiledPolicy, run: Run): PolicyDecision[] {
  const results = policy.validations.map((v) => run.eval(v.check, true));
  const messages: string[] = [];
  let messageFailure: string | undefined;
  try {
    for (const [i, r] of results.entries()) {
      if (r.error === undefined && r.value !== true) {
        messages[i] = messageOf(run, policy.validations[i]);
      }
    }
  } catch (e) {
    if (!(e instanceof OutOfBudget)) throw e;
    messageFailure = `failed messageExpression: ${OUT_OF_BUDGET}`;
  }
  return results.map((r, i): PolicyDecision => {
    if (r.error !== undefined) return failure(policy, r.error);
    if (messageFailure) return failure(policy, messageFailure);
    if (r.value === true) return { action: "admit", error: false, message: "" };
    const reason = policy.validations[i].reason ?? "Invalid";
    return { action: "deny", error: false, message: messages[i], reason };
  });
}

/**
 * Evaluates `policy` for one request and param object. Never throws. Match conditions,
 * validations (with their message expressions) and audit annotations each have the runtime
 * budget, as in Kubernetes.
 */
export function evaluatePolicy(policy: CompiledPolicy, input: EvaluationInput): ValidateResult {
  const run = new Run(policy, input);
  let decisions: PolicyDecision[];
  try {
    const matched = matchConditions(policy, run);
    if (matched === false) return { decisions: [], auditAnnotations: [] };
    if (typeof matched === "string") {
      return { decisions: [failure(policy, matched)], auditAnnotations: [] };
    }
    run.remaining = RUNTIME_COST_BUDGET;
    decisions = validations(policy, run);
  } catch (e) {
    if (!(e instanceof OutOfBudget)) throw e;
    return { decisions: [failure(policy, OUT_OF_BUDGET)], auditAnnotations: [] };
  }
  run.remaining = RUNTIME_COST_BUDGET;
  try {
    return { decisions, auditAnnotations: auditAnnotations(policy, run) };
  } catch (e) {
    if (!(e instanceof OutOfBudget)) throw e;
    return { decisions: [failure(policy, OUT_OF_BUDGET)], auditAnnotations: [] };
  }
}
