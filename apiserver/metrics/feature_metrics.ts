/**
 * `kubernetes_feature_enabled{name,stage}`: the stage and state of every feature gate, as
 * Kubernetes components record them at start.
 *
 * @module
 */
import type { FeatureGates, FeatureStage } from "../../shared/feature_gates.ts";
import type { Gauge } from "./metric.ts";
import type { MetricsRegistry } from "./metrics_registry.ts";

/** The `stage` label: Kubernetes' prerelease names, empty for GA. */
const STAGE_LABEL: Readonly<Record<FeatureStage, string>> = {
  Alpha: "ALPHA",
  Beta: "BETA",
  GA: "",
  Deprecated: "DEPRECATED",
};

/** Defines the gauge in `registry` and sets it to 1 (on) or 0 (off) for every gate. */
export function recordFeatureInfo(
  registry: MetricsRegistry,
  gates: FeatureGates<string>,
): Gauge {
  const gauge = registry.gauge({
    name: "kubernetes_feature_enabled",
    help: "This metric records the data about the stage and enablement of a k8s feature.",
    labels: ["name", "stage"],
    stabilityLevel: "BETA",
  });
  for (const { name, spec, enabled } of gates.all()) {
    gauge.set({ name, stage: STAGE_LABEL[spec.stage] }, enabled ? 1 : 0);
  }
  return gauge;
}
