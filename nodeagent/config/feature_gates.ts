/**
 * The node agent's feature gates: the shared registry (`shared/feature_gates.ts`) applied to the
 * configuration's `featureGates` and then the `--feature-gates` flag.
 *
 * @module
 */
import { FeatureGates, KNOWN_FEATURES } from "../../shared/feature_gates.ts";

export { FeatureGates } from "../../shared/feature_gates.ts";

/**
 * Checks one `featureGates` entry of a configuration; returns the problem message, or undefined
 * when the entry is valid (a known gate, a boolean, not moving a locked gate).
 */
export function featureGateProblem(name: string, value: unknown): string | undefined {
  const { errors } = new FeatureGates(KNOWN_FEATURES).set({ [name]: value });
  return errors.length ? errors.join("; ") : undefined;
}

/**
 * Builds the effective gates: each override (configuration first, later ones win) is applied
 * in order.
 *
 * @throws {RangeError} listing every problem when an override is invalid.
 */
export function featureGates(...overrides: Record<string, boolean>[]): FeatureGates {
  const gates = new FeatureGates(KNOWN_FEATURES);
  const errors: string[] = [];
  for (const o of overrides) errors.push(...gates.set(o).errors);
  if (errors.length) throw new RangeError(errors.join("; "));
  return gates;
}
