/**
 * A ValidatingAdmissionPolicy compiled once per generation: its match constraints, match
 * conditions, variables, validations (with message expressions and reasons) and audit
 * annotations, each expression compiled in the admission policy environment. A compile error
 * stays attached to its expression and is reported (through the failure policy) when the
 * expression would run, as Kubernetes does.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { isObject } from "../../../shared/json/is_object.ts";
import type { CelEnvironment, CelProgram } from "../../cel/mod.ts";
import { type MatchCriteria, ResourceMatcher } from "../matching/resource_matcher.ts";

/** An expression: its program, or the compile error Kubernetes reports for it. */
export type CompiledExpression =
  | { expression: string; program: CelProgram; error?: undefined }
  | { expression: string; program?: undefined; error: string };

/** One validation. */
export interface CompiledValidation {
  check: CompiledExpression;
  message: string;
  messageExpression?: CompiledExpression;
  /** `Forbidden`, `Invalid`, `RequestEntityTooLarge`, `Unauthorized`; default Invalid. */
  reason?: string;
}

/** A policy ready to evaluate. */
export interface CompiledPolicy {
  name: string;
  /** `metadata.generation` it was compiled from. */
  generation: number;
  /** `Fail` (default) or `Ignore`. */
  failurePolicy: string;
  matcher: ResourceMatcher;
  /** `{apiVersion, kind}` of the params, when the policy takes them. */
  paramKind?: { apiVersion: string; kind: string };
  matchConditions: { name: string; check: CompiledExpression }[];
  variables: { name: string; value: CompiledExpression }[];
  validations: CompiledValidation[];
  auditAnnotations: { key: string; value: CompiledExpression }[];
  /** Whether an expression mentions `namespaceObject` (else the namespace is not read). */
  readsNamespace: boolean;
}

function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

function list(v: unknown): Record<string, unknown>[] {
  return Array.isArray(v) ? v.filter(isObject) : [];
}

/** Compiles `expression` in `env`, keeping Kubernetes' wording of a compile error. */
export function compileExpression(env: CelEnvironment, expression: string): CompiledExpression {
  const c = env.compile(expression);
  if (c.ok) return { expression, program: c.program };
  return { expression, error: c.errors.map((e) => `ERROR: ${e.detail}`).join("\n") };
}

/** Compiles every expression of `policy` (a ValidatingAdmissionPolicy object). */
export function compilePolicy(policy: KubeObject, env: CelEnvironment): CompiledPolicy {
  const spec = isObject(policy.spec) ? policy.spec : {};
  const compile = (e: unknown) => compileExpression(env, str(e));
  const pk = isObject(spec.paramKind) ? spec.paramKind : undefined;
  const readsNamespace = JSON.stringify([
    spec.matchConditions,
    spec.variables,
    spec.validations,
    spec.auditAnnotations,
  ]).includes("namespaceObject");
  return {
    readsNamespace,
    name: policy.metadata.name ?? "",
    generation: Number(policy.metadata.generation ?? 0),
    failurePolicy: str(spec.failurePolicy) || "Fail",
    matcher: ResourceMatcher.compile(
      isObject(spec.matchConstraints) ? spec.matchConstraints as MatchCriteria : undefined,
      { emptyRulesMatchAll: false },
    ),
    paramKind: pk ? { apiVersion: str(pk.apiVersion), kind: str(pk.kind) } : undefined,
    matchConditions: list(spec.matchConditions).map((m) => ({
      name: str(m.name),
      check: compile(m.expression),
    })),
    variables: list(spec.variables).map((v) => ({
      name: str(v.name),
      value: compile(v.expression),
    })),
    validations: list(spec.validations).map((v) => ({
      check: compile(v.expression),
      message: str(v.message),
      messageExpression: v.messageExpression ? compile(v.messageExpression) : undefined,
      reason: str(v.reason) || undefined,
    })),
    auditAnnotations: list(spec.auditAnnotations).map((a) => ({
      key: str(a.key),
      value: compile(a.valueExpression),
    })),
  };
}
