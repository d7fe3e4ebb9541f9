/**
 * `allOf`, `anyOf`, `oneOf` and `not` of a node, with go-openapi's composite messages. The
 * nested errors of `allOf` are reported; the composite errors sit at the validated object's
 * root path with an empty value, as apiextensions-apiserver maps go-openapi's plain errors.
 *
 * @module
 */
import type { JSONSchemaProps } from "../../../../shared/api/apiextensions/v1/types.ts";
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import { invalid } from "../../../../shared/api/validation/field_errors.ts";
import { inBody } from "./scalar_checks.ts";
import type { At } from "./scalar_checks.ts";

/** Validates `v` against a sub-schema at `at`, appending to `errs` (the value walk). */
export type NodeWalk = (v: unknown, s: JSONSchemaProps, at: At, errs: FieldError[]) => void;

function rootField(at: At): string {
  return at.root === "" ? "<nil>" : at.root;
}

/** Runs the junctors of `s` on `v`, appending their errors. */
export function validateJunctors(
  v: unknown,
  s: JSONSchemaProps,
  at: At,
  errs: FieldError[],
  walk: NodeWalk,
): void {
  const run = (x: unknown, n: JSONSchemaProps, a: At) => {
    const e: FieldError[] = [];
    walk(x, n, a, e);
    return e;
  };
  const composite = (msg: string) => errs.push(invalid(rootField(at), "", `${inBody(at)} ${msg}`));
  if (s.allOf?.length) {
    let ok = 0;
    for (const n of s.allOf) {
      const e = run(v, n, at);
      if (e.length === 0) ok++;
      errs.push(...e);
    }
    if (ok !== s.allOf.length) {
      composite(`must validate all the schemas (allOf)${ok === 0 ? ". None validated" : ""}`);
    }
  }
  if (s.anyOf?.length) {
    const results = s.anyOf.map((n) => run(v, n, at));
    if (!results.some((e) => e.length === 0)) {
      composite("must validate at least one schema (anyOf)");
      errs.push(...results.reduce((a, b) => (b.length < a.length ? b : a)));
    }
  }
  if (s.oneOf?.length) {
    const results = s.oneOf.map((n) => run(v, n, at));
    const ok = results.filter((e) => e.length === 0).length;
    if (ok !== 1) {
      const more = ok === 0 ? "Found none valid" : `Found ${ok} valid alternatives`;
      composite(`must validate one and only one schema (oneOf). ${more}`);
      if (ok === 0) errs.push(...results.reduce((a, b) => (b.length < a.length ? b : a)));
    }
  }
  if (s.not && run(v, s.not, at).length === 0) composite("must not validate the schema (not)");
}
