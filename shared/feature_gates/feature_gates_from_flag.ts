/**
 * featureGatesFromFlag: builds the effective gates from a `--feature-gates` flag value.
 *
 * @module
 */
import { FeatureGates } from "./feature_gates.ts";
import type { FeatureName, FeatureSpec } from "./known_features.ts";

/** The gates built from a flag value, with every problem found. */
export interface FeatureGatesFromFlag<N extends string = FeatureName> {
  /** The gates; at their defaults if `errors` is non-empty. */
  gates: FeatureGates<N>;
  /** One message per rejected entry; a caller should report them all and exit. */
  errors: string[];
  /** Messages the caller should log as warnings (deprecated or GA gates set). */
  warnings: string[];
}

/**
 * Parses a `--feature-gates` value (`A=true,B=false`; undefined or empty means all defaults)
 * against `known` (the project's `KNOWN_FEATURES`, or a test's list).
 */
export function featureGatesFromFlag<N extends string = FeatureName>(
  value: string | undefined,
  known: Readonly<Record<N, FeatureSpec>>,
): FeatureGatesFromFlag<N> {
  const gates = new FeatureGates<N>(known);
  const { errors, warnings } = gates.parse(value ?? "");
  return { gates, errors, warnings };
}
