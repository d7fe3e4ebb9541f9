/**
 * Label selectors: the `labelSelector` query grammar of Kubernetes (`=`, `==`, `!=`, `in`,
 * `notin`, exists, `!key`, and the rarely used `>`/`<`), the `LabelSelector` object form
 * (matchLabels, matchExpressions), matching, and the canonical string form. Parse errors are
 * {@link SelectorError}s carrying Kubernetes' messages.
 *
 * @module
 */
import { compareStrings, goQuote } from "../api/validation/go_quote.ts";
import {
  type LabelOperator,
  type LabelRequirement,
  newRequirement,
  requirementMatches,
  requirementString,
} from "./label_requirement.ts";
import { parseLabelRequirements } from "./parse_label_requirements.ts";
import { SelectorError } from "./selector_error.ts";

export type { LabelOperator, LabelRequirement };

/** A requirement of a `LabelSelector` object. */
export interface LabelSelectorRequirement {
  key: string;
  operator: "In" | "NotIn" | "Exists" | "DoesNotExist" | string;
  values?: string[];
}

/** The `LabelSelector` object of the API (e.g. a Deployment's `spec.selector`). */
export interface LabelSelectorObject {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

/** A parsed label selector. Immutable. */
export class LabelSelector {
  /** The requirements, sorted by key. */
  readonly requirements: readonly LabelRequirement[];
  readonly #matchesNothing: boolean;

  private constructor(requirements: LabelRequirement[], nothing: boolean) {
    this.requirements = requirements;
    this.#matchesNothing = nothing;
  }

  /** Builds a selector from requirements (sorted by key, as Kubernetes does). */
  static of(requirements: readonly LabelRequirement[]): LabelSelector {
    const sorted = [...requirements].sort((a, b) => compareStrings(a.key, b.key));
    return new LabelSelector(sorted, false);
  }

  static #EVERYTHING = new LabelSelector([], false);
  static #NOTHING = new LabelSelector([], true);

  /** The selector that matches everything (the empty selector). */
  static everything(): LabelSelector {
    return LabelSelector.#EVERYTHING;
  }

  /** The selector that matches nothing (from a null `LabelSelector` object). */
  static nothing(): LabelSelector {
    return LabelSelector.#NOTHING;
  }

  /** True when the selector does not restrict anything. */
  empty(): boolean {
    return !this.#matchesNothing && this.requirements.length === 0;
  }

  /** Whether `labels` satisfy every requirement. */
  matches(labels: Readonly<Record<string, string>> | undefined): boolean {
    if (this.#matchesNothing) return false;
    const ls = labels ?? {};
    for (const r of this.requirements) if (!requirementMatches(r, ls)) return false;
    return true;
  }

  /**
   * The value a key must have, when the selector pins it with `=`, `==` or a one-value `in`;
   * undefined otherwise.
   */
  requiresExactMatch(key: string): string | undefined {
    for (const r of this.requirements) {
      if (r.key !== key) continue;
      if (
        (r.operator === "=" || r.operator === "==" || r.operator === "in") && r.values.length === 1
      ) {
        return r.values[0];
      }
      return undefined;
    }
    return undefined;
  }

  /** The canonical string form, as Kubernetes prints it (`a=b,c in (d,e),!f`). */
  toString(): string {
    return this.requirements.map(requirementString).join(",");
  }
}

/**
 * Parses the `labelSelector` string grammar. The empty string selects everything. Throws a
 * {@link SelectorError} (400) with Kubernetes' message on bad input.
 */
export function parseLabelSelector(selector: string): LabelSelector {
  const reqs = parseLabelRequirements(selector);
  return reqs.length === 0 ? LabelSelector.everything() : LabelSelector.of(reqs);
}

/** A selector requiring exactly the given labels (no validation, as `SelectorFromSet`). */
export function labelSelectorFromSet(
  set: Readonly<Record<string, string>> | undefined,
): LabelSelector {
  const entries = Object.entries(set ?? {});
  if (entries.length === 0) return LabelSelector.everything();
  return LabelSelector.of(entries.map(([key, v]) => ({ key, operator: "=", values: [v] })));
}

/**
 * Converts a `LabelSelector` object as `metav1.LabelSelectorAsSelector`: null or undefined
 * selects nothing, an empty object everything. Throws a {@link SelectorError} on an invalid
 * key, value or operator.
 */
export function labelSelectorFromObject(
  ps: LabelSelectorObject | null | undefined,
): LabelSelector {
  if (ps === null || ps === undefined) return LabelSelector.nothing();
  const matchLabels = Object.entries(ps.matchLabels ?? {});
  const exprs = ps.matchExpressions ?? [];
  if (matchLabels.length + exprs.length === 0) return LabelSelector.everything();
  const reqs: LabelRequirement[] = [];
  for (const [k, v] of matchLabels) reqs.push(newRequirement(k, "=", [v]));
  for (const expr of exprs) {
    let op: LabelOperator;
    switch (expr.operator) {
      case "In":
        op = "in";
        break;
      case "NotIn":
        op = "notin";
        break;
      case "Exists":
        op = "exists";
        break;
      case "DoesNotExist":
        op = "!";
        break;
      default:
        throw new SelectorError(
          `${goQuote(String(expr.operator))} is not a valid label selector operator`,
        );
    }
    reqs.push(newRequirement(expr.key, op, expr.values ?? []));
  }
  return LabelSelector.of(reqs);
}
