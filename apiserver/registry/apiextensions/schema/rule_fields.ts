/**
 * The CRD-write checks of each `x-kubernetes-validations` entry that need no compiling:
 * `rule` present, `message` non-empty and on one line, `messageExpression` non-empty, `reason`
 * one of Kubernetes' four, `fieldPath` non-empty, one line and naming a declared field.
 *
 * @module
 */
import type { JSONSchemaProps } from "../../../../shared/api/apiextensions/v1/types.ts";
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import { invalid, notSupported, required } from "../../../../shared/api/validation/field_errors.ts";
import { childPath, indexPath } from "./field_paths.ts";
import { resolveRuleFieldPath } from "./rule_field_path.ts";

/** The reasons a rule may give. */
export const RULE_REASONS = [
  "FieldValueDuplicate",
  "FieldValueForbidden",
  "FieldValueInvalid",
  "FieldValueRequired",
];

const hasNewlines = (s: string) => /[\n\r]/.test(s);

/** The field errors of the rules declared on `s` at `path`. */
export function validateRuleFields(s: JSONSchemaProps, path: string): FieldError[] {
  const errs: FieldError[] = [];
  (s["x-kubernetes-validations"] ?? []).forEach((rule, i) => {
    const rp = indexPath(childPath(path, "x-kubernetes-validations"), i);
    const r = typeof rule.rule === "string" ? rule.rule.trim() : "";
    const msg = typeof rule.message === "string" ? rule.message : "";
    const mx = typeof rule.messageExpression === "string" ? rule.messageExpression : "";
    if (r === "") errs.push(required(childPath(rp, "rule"), "rule is not specified"));
    else if (msg.length > 0 && msg.trim() === "") {
      errs.push(invalid(childPath(rp, "message"), msg, "message must be non-empty if specified"));
    } else if (hasNewlines(msg.trim())) {
      errs.push(invalid(childPath(rp, "message"), msg, "message must not contain line breaks"));
    } else if (hasNewlines(r) && msg.trim() === "") {
      errs.push(required(
        childPath(rp, "message"),
        "message must be specified if rule contains line breaks",
      ));
    }
    if (mx.length > 0 && mx.trim() === "") {
      errs.push(required(
        childPath(rp, "messageExpression"),
        "messageExpression must be non-empty if specified",
      ));
    }
    if (rule.reason !== undefined && !RULE_REASONS.includes(rule.reason)) {
      errs.push(notSupported(childPath(rp, "reason"), rule.reason, RULE_REASONS));
    }
    errs.push(...fieldPathErrors(s, rule.fieldPath, childPath(rp, "fieldPath")));
  });
  return errs;
}

function fieldPathErrors(s: JSONSchemaProps, fp: string | undefined, at: string): FieldError[] {
  if (typeof fp !== "string" || fp.length === 0) return [];
  if (fp.trim() === "") return [invalid(at, fp, "fieldPath must be non-empty if specified")];
  if (hasNewlines(fp)) return [invalid(at, fp, "fieldPath must not contain line breaks")];
  const r = resolveRuleFieldPath(s, fp.trim());
  return r instanceof Error ? [invalid(at, fp, "fieldPath must be a valid path")] : [];
}
