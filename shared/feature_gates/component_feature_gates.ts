/**
 * The API server's `--feature-gates` as kube-apiserver 1.32 reads it: repeatable,
 * comma-separated `component:Name=value` pairs where the component defaults to `kube` (the only
 * one this server registers), with kube's help text listing `kube:Name=true|false (...)`.
 *
 * @module
 */
import { FeatureGates } from "./feature_gates.ts";
import type { FeatureGatesFromFlag } from "./feature_gates_from_flag.ts";
import type { FeatureName, FeatureSpec } from "./known_features.ts";

/** The component whose gates an entry without a prefix sets. */
export const DEFAULT_COMPONENT = "kube";

/**
 * Parses every `--feature-gates` value given (in order; later entries win) into the `kube`
 * component's gates, whose list is `known`. An entry `wardle:A=true` names an unregistered component; mixing
 * unprefixed entries with `kube:` ones is refused, as in Kubernetes. Every problem is returned.
 */
export function componentFeatureGatesFromFlags<N extends string = FeatureName>(
  values: readonly string[],
  known: Readonly<Record<N, FeatureSpec>>,
): FeatureGatesFromFlag<N> {
  const gates = new FeatureGates<N>(known);
  const errors: string[] = [];
  const byComponent = new Map<string, string[]>();
  for (const value of values) {
    for (const pair of value.split(",")) {
      if (pair.trim() === "") continue;
      const colon = pair.indexOf(":");
      const component = colon < 0 ? "" : pair.slice(0, colon).trim();
      const entry = colon < 0 ? pair : pair.slice(colon + 1);
      byComponent.set(component, [...(byComponent.get(component) ?? []), entry]);
    }
  }
  if (byComponent.has("") && byComponent.has(DEFAULT_COMPONENT)) {
    errors.push(
      "set kube feature gates with default empty prefix or kube: prefix consistently, do not mix use",
    );
  }
  for (const component of byComponent.keys()) {
    if (component !== "" && component !== DEFAULT_COMPONENT) {
      errors.push(`component not registered: ${component}`);
    }
  }
  const entries = [
    ...(byComponent.get("") ?? []),
    ...(byComponent.get(DEFAULT_COMPONENT) ?? []),
  ];
  const { errors: gateErrors, warnings } = errors.length
    ? { errors: [], warnings: [] }
    : gates.parse(entries.join(","));
  return { gates, errors: [...errors, ...gateErrors], warnings };
}

/**
 * kube-apiserver's help of the flag: the component sentence, then `kube:` and one
 * {@link FeatureGates.knownFeatures} line per settable gate.
 */
export function componentFeatureGatesFlagHelp(gates: FeatureGates<string>): string {
  return "Comma-separated list of component:key=value pairs that describe feature gates for " +
    "alpha/experimental features of different components.\n" +
    'If the component is not specified, defaults to "kube". This flag can be repeatedly ' +
    "invoked. For example: --feature-gates 'wardle:featureA=true,wardle:featureB=false' " +
    "--feature-gates 'kube:featureC=true'Options are:\n" +
    gates.knownFeatures().map((f) => `${DEFAULT_COMPONENT}:${f}`).join("\n");
}
