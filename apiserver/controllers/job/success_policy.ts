/**
 * An Indexed Job's `successPolicy` (kube's JobSuccessPolicy): the first rule whose
 * `succeededIndexes` all succeeded (or `succeededCount` of them, or of all indexes when the rule
 * names none) declares the Job succeeded, with kube's message "Matched rules at index N".
 *
 * @module
 */
import { isObject } from "../../../shared/json/is_object.ts";
import { parseIndexes } from "./completed_indexes.ts";

/** The message of the first rule `succeeded` meets, or undefined. */
export function matchSuccessPolicy(
  policy: unknown,
  completions: number,
  succeeded: Set<number>,
): string | undefined {
  if (!isObject(policy) || !Array.isArray(policy.rules) || succeeded.size === 0) return;
  for (const [index, rule] of policy.rules.entries()) {
    if (!isObject(rule)) continue;
    const count = typeof rule.succeededCount === "number" ? rule.succeededCount : undefined;
    if (typeof rule.succeededIndexes === "string") {
      const required = parseIndexes(rule.succeededIndexes, completions);
      if (required.size === 0) continue;
      const met = [...required].filter((i) => succeeded.has(i)).length;
      if (count === undefined ? met === required.size : met >= count) {
        return `Matched rules at index ${index}`;
      }
    } else if (count !== undefined && succeeded.size >= count) {
      return `Matched rules at index ${index}`;
    }
  }
  return undefined;
}
