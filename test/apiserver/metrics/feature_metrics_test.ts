import assert from "node:assert/strict";
import { MetricsRegistry, recordFeatureInfo } from "../../../apiserver/metrics/mod.ts";
import { FeatureGates, type FeatureSpec } from "../../../shared/feature_gates.ts";

Deno.test("recordFeatureInfo() sets kubernetes_feature_enabled per gate with kube's stage label", async () => {
  const known = {
    AllAlpha: { stage: "Alpha", default: false },
    AllBeta: { stage: "Beta", default: false },
    A: { stage: "Alpha", default: false },
    B: { stage: "Beta", default: true },
    G: { stage: "GA", default: true, locked: true },
    D: { stage: "Deprecated", default: false },
  } satisfies Record<string, FeatureSpec>;
  const gates = new FeatureGates<string>(known);
  assert.deepEqual(gates.parse("A=true").errors, []);
  const registry = new MetricsRegistry();
  recordFeatureInfo(registry, gates);
  assert.equal(
    await registry.exposition(),
    [
      "# HELP kubernetes_feature_enabled [BETA] This metric records the data about the stage and enablement of a k8s feature.",
      "# TYPE kubernetes_feature_enabled gauge",
      'kubernetes_feature_enabled{name="A",stage="ALPHA"} 1',
      'kubernetes_feature_enabled{name="AllAlpha",stage="ALPHA"} 0',
      'kubernetes_feature_enabled{name="AllBeta",stage="BETA"} 0',
      'kubernetes_feature_enabled{name="B",stage="BETA"} 1',
      'kubernetes_feature_enabled{name="D",stage="DEPRECATED"} 0',
      'kubernetes_feature_enabled{name="G",stage=""} 1',
      "",
    ].join("\n"),
  );
});
