/**
 * Validation pieces several storage.k8s.io kinds share, as kube's core validation has them: CSI
 * driver names, qualified names and topology selector terms.
 *
 * @module
 */
import type { FieldError } from "../../../shared/errors/status_error.ts";
import {
  duplicate,
  invalid,
  required,
  tooLong,
} from "../../../shared/api/validation/field_errors.ts";
import { isDNS1123Subdomain, isQualifiedName } from "../../../shared/api/validation/identifiers.ts";
import { listOf } from "../generic/table_columns.ts";

/** ValidateCSIDriverName: required, at most 63 characters, a DNS subdomain in lower case. */
export function validateCSIDriverName(field: string, name: unknown): FieldError[] {
  const s = typeof name === "string" ? name : "";
  const errs: FieldError[] = [];
  if (s.length === 0) errs.push(required(field));
  if (s.length > 63) errs.push(tooLong(field, s, "may not be more than 63 bytes"));
  for (const msg of isDNS1123Subdomain(s.toLowerCase())) errs.push(invalid(field, s, msg));
  return errs;
}

/** ValidateQualifiedName: one Invalid error per problem of `value` as a qualified name. */
export function validateQualifiedName(field: string, value: string): FieldError[] {
  return isQualifiedName(value).map((msg) => invalid(field, value, msg));
}

/** ValidateTopologySelectorTerm; returns its errors and its key → values map. */
function validateTopologyTerm(
  field: string,
  term: Record<string, unknown>,
): { errs: FieldError[]; key: string } {
  const errs: FieldError[] = [];
  const byKey = new Map<string, string[]>();
  for (const [i, req] of listOf(term.matchLabelExpressions).entries()) {
    const f = `${field}.matchLabelExpressions[${i}]`;
    const values = Array.isArray(req.values) ? req.values.map(String) : [];
    if (values.length === 0) errs.push(required(`${f}.values`));
    values.forEach((v, j) => {
      if (values.indexOf(v) !== j) errs.push(duplicate(`${f}.values[${j}]`, v));
    });
    const key = String(req.key ?? "");
    errs.push(...validateQualifiedName(`${f}.key`, key));
    if (byKey.has(key)) errs.push(duplicate(`${f}.key`, key));
    byKey.set(key, [...new Set(values)].sort());
  }
  const canonical = JSON.stringify([...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : 1)));
  return { errs, key: canonical };
}

/** validateAllowedTopologies of a StorageClass: valid terms, no term twice. */
export function validateAllowedTopologies(field: string, v: unknown): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  for (const [i, term] of listOf(v).entries()) {
    const r = validateTopologyTerm(`${field}[${i}]`, term);
    errs.push(...r.errs);
    if (seen.has(r.key)) errs.push(duplicate(`${field}[${i}].matchLabelExpressions`, ""));
    seen.add(r.key);
  }
  return errs;
}
