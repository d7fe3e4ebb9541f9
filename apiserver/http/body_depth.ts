/**
 * checkBodyDepth: the nesting limit of decoded request bodies.
 *
 * kube-apiserver's JSON decoding stops at a depth of 10,000. The code that walks a body here
 * (merge and JSON patches, field ownership, validation, encoding) recurses once per level, and
 * some of it runs out of stack near 3,000 levels, which would answer a 500. No Kubernetes object
 * comes near this lower limit; a body past it is a 400 before anything walks it.
 *
 * @module
 */
import { StatusError } from "../../shared/errors/status_error.ts";

/** The deepest nesting of objects and arrays a request body may have. */
export const MAX_BODY_DEPTH = 1000;

/** Throws 400 when `value` nests objects and arrays deeper than {@link MAX_BODY_DEPTH}. */
export function checkBodyDepth(value: unknown): void {
  if (value === null || typeof value !== "object") return;
  // Iterative, so that the check itself cannot run out of stack.
  const stack: Array<[object, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (depth > MAX_BODY_DEPTH) {
      throw StatusError.badRequest(
        `the request body exceeds the maximum nesting depth of ${MAX_BODY_DEPTH}`,
      );
    }
    const members = Array.isArray(v) ? v : Object.values(v);
    for (const m of members) {
      if (m !== null && typeof m === "object") stack.push([m, depth + 1]);
    }
  }
}
