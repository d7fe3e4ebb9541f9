/**
 * Evaluating one compiled rule and turning its outcome into kube's field errors: a false
 * result gives the rule's message (or messageExpression, or `failed rule: <rule>`) with its
 * reason at its fieldPath; evaluation errors and cost limits give apiextensions' messages.
 *
 * @module
 */
import type { ValidationRule } from "../../../../shared/api/apiextensions/v1/types.ts";
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import {
  duplicate,
  forbidden,
  invalid,
  required,
} from "../../../../shared/api/validation/field_errors.ts";
import { goQuote } from "../../../../shared/api/validation/go_quote.ts";
import type { CompiledRule } from "./rule_compile.ts";
import { appendSegments } from "./rule_field_path.ts";
import type { CostBudget } from "../../../cel/mod.ts";

/** Per-validation state: the shared budget, the errors, and whether to stop. */
export interface RunState {
  budget: CostBudget;
  errs: FieldError[];
  stopped: boolean;
  ratchet: boolean;
}

/** kube's MaxEvaluatedMessageExpressionSizeBytes. */
export const MAX_MESSAGE_EXPRESSION_BYTES = 5 * 1024;

const OUT_OF_BUDGET =
  "validation failed due to running out of cost budget, no further validation rules will be run";

/** The rule's message, or its trimmed text. */
export function ruleErrorString(rule: ValidationRule): string {
  return rule.message ? rule.message.trim() : String(rule.rule ?? "").trim();
}

/** The message of a failed rule: its message, or `failed rule: <rule>`. */
export function ruleMessageOrDefault(rule: ValidationRule): string {
  return rule.message ? rule.message.trim() : `failed rule: ${ruleErrorString(rule)}`;
}

/** The field error a failed rule reports for its reason. */
export function fieldErrorForReason(
  field: string,
  value: unknown,
  detail: string,
  reason?: string,
): FieldError {
  switch (reason) {
    case "FieldValueForbidden":
      return forbidden(field, detail);
    case "FieldValueRequired":
      return required(field, detail);
    case "FieldValueDuplicate":
      return duplicate(field, value);
  }
  return invalid(field, value, detail);
}

/** Evaluates `cr` with `vars`; appends its errors to `st` (and stops it on cost limits). */
export function evaluateRule(
  cr: CompiledRule,
  vars: Record<string, unknown>,
  at: string,
  type: string,
  st: RunState,
): void {
  const r = cr.program!.evaluate(vars, { budget: st.budget });
  const rs = ruleErrorString(cr.rule);
  if (!r.ok) {
    const msg = r.error.message;
    if (r.error.code === "cost_limit_exceeded") {
      st.stopped = true;
      st.errs.push(invalid(
        at,
        type,
        msg.includes("per-object") || st.budget.remaining <= 0
          ? OUT_OF_BUDGET
          : `'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${rs}`,
      ));
    } else if (/overload/i.test(msg) || /overload/.test(String(r.error.code))) {
      st.errs.push(
        invalid(
          at,
          type,
          `'${msg}': call arguments did not match a supported operator, function or macro signature for rule: ${rs}`,
        ),
      );
    } else {
      st.errs.push(invalid(at, type, `${msg} evaluating rule: ${rs}`));
    }
    return;
  }
  if (r.value === true) return;
  const field = cr.fieldPath.length && at !== "<nil>"
    ? appendSegments(at, cr.fieldPath)
    : cr.fieldPath.length
    ? appendSegments("", cr.fieldPath)
    : at;
  const detail = messageOf(cr, vars, at, type, st);
  if (detail === undefined) return;
  st.errs.push(fieldErrorForReason(field, type, detail, cr.rule.reason));
}

function messageOf(
  cr: CompiledRule,
  vars: Record<string, unknown>,
  at: string,
  type: string,
  st: RunState,
): string | undefined {
  if (!cr.messageProgram) return ruleMessageOrDefault(cr.rule);
  const m = cr.messageProgram.evaluate(vars, { budget: st.budget });
  if (!m.ok) {
    if (m.error.code !== "cost_limit_exceeded") return ruleMessageOrDefault(cr.rule);
    st.stopped = true;
    const perObject = m.error.message.includes("per-object") || st.budget.remaining <= 0;
    st.errs.push(invalid(
      at,
      type,
      perObject
        ? "messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run"
        : `no further validation rules will be run due to call cost exceeds limit for messageExpression: ${
          goQuote(cr.rule.messageExpression ?? "")
        }`,
    ));
    return undefined;
  }
  const text = typeof m.value === "string" ? m.value.trim() : "";
  if (text === "" || text.includes("\n")) return ruleMessageOrDefault(cr.rule);
  if (new TextEncoder().encode(text).length > MAX_MESSAGE_EXPRESSION_BYTES) {
    return ruleMessageOrDefault(cr.rule);
  }
  return text;
}
