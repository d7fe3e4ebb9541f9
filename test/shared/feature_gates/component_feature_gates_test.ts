import assert from "node:assert/strict";
import {
  componentFeatureGatesFlagHelp,
  componentFeatureGatesFromFlags,
  FeatureGates,
  type FeatureSpec,
} from "../../../shared/feature_gates.ts";

const GATES = {
  AllAlpha: { stage: "Alpha", default: false },
  AllBeta: { stage: "Beta", default: false },
  A: { stage: "Alpha", default: false },
  B: { stage: "Beta", default: true },
  G: { stage: "GA", default: true, locked: true },
  D: { stage: "Deprecated", default: false },
} satisfies Record<string, FeatureSpec>;

Deno.test("componentFeatureGatesFromFlags() reads kube-apiserver's component:key=value form", async (t) => {
  await t.step("no prefix, and repeated flags accumulate (later wins)", () => {
    const r = componentFeatureGatesFromFlags(["A=true,B=false", "B=true"], GATES);
    assert.deepEqual(r.errors, []);
    assert.equal(r.gates.enabled("A"), true);
    assert.equal(r.gates.enabled("B"), true);
  });
  await t.step("the kube: prefix", () => {
    const r = componentFeatureGatesFromFlags(["kube:A=true", "kube:D=true"], GATES);
    assert.deepEqual(r.errors, []);
    assert.equal(r.gates.enabled("A"), true);
    assert.deepEqual(r.warnings, [
      "Setting deprecated feature gate D=true. It will be removed in a future release.",
    ]);
  });
  await t.step("every problem at once, with kube's messages", () => {
    const r = componentFeatureGatesFromFlags(["Nope=true,G=false", "A=maybe,B"], GATES);
    assert.deepEqual(r.errors, [
      'invalid value of A=maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax',
      "missing bool value for B",
      "unrecognized feature gate: Nope",
      "cannot set feature gate G to false, feature is locked to true",
    ]);
    assert.equal(r.gates.enabled("A"), false, "nothing applied");
  });
  await t.step("an unregistered component and mixed prefixes", () => {
    const r = componentFeatureGatesFromFlags(
      ["wardle:featureA=true,A=true", "kube:B=false"],
      GATES,
    );
    assert.deepEqual(r.errors, [
      "set kube feature gates with default empty prefix or kube: prefix consistently, do not mix use",
      "component not registered: wardle",
    ]);
  });
});

Deno.test("componentFeatureGatesFlagHelp() is kube-apiserver's help with kube: lines", () => {
  assert.equal(
    componentFeatureGatesFlagHelp(new FeatureGates<string>(GATES)),
    "Comma-separated list of component:key=value pairs that describe feature gates for " +
      "alpha/experimental features of different components.\n" +
      'If the component is not specified, defaults to "kube". This flag can be repeatedly ' +
      "invoked. For example: --feature-gates 'wardle:featureA=true,wardle:featureB=false' " +
      "--feature-gates 'kube:featureC=true'Options are:\n" +
      "kube:A=true|false (ALPHA - default=false)\n" +
      "kube:AllAlpha=true|false (ALPHA - default=false)\n" +
      "kube:AllBeta=true|false (BETA - default=false)\n" +
      "kube:B=true|false (BETA - default=true)",
  );
});
