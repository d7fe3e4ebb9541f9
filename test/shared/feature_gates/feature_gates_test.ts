import assert from "node:assert/strict";
import {
  FeatureGates,
  featureGatesFlagHelp,
  featureGatesFromFlag,
  type FeatureSpec,
  KNOWN_FEATURES,
  parseGoBool,
} from "../../../shared/feature_gates.ts";

const TEST_GATES = {
  AllAlpha: { stage: "Alpha", default: false },
  AllBeta: { stage: "Beta", default: false },
  Alpha1: { stage: "Alpha", default: false },
  Beta1: { stage: "Beta", default: true },
  Stable: { stage: "GA", default: true, locked: true },
  Old: { stage: "Deprecated", default: false },
} satisfies Record<string, FeatureSpec>;
type TestGate = keyof typeof TEST_GATES;

Deno.test("FeatureGates.enabled() gives the spec's stages and defaults", async (t) => {
  const gates = new FeatureGates(KNOWN_FEATURES);
  const cases: [keyof typeof KNOWN_FEATURES, string, boolean, boolean][] = [
    ["WatchList", "Alpha", false, false],
    ["APIResponseCompression", "Beta", true, false],
    ["ContainerCheckpoint", "Beta", true, false],
    ["AnonymousAuthConfigurableEndpoints", "Alpha", false, false],
    ["StructuredAuthenticationConfiguration", "Beta", true, false],
    ["AuthorizeWithSelectors", "Alpha", false, false],
    ["AuthorizeNodeWithSelectors", "Alpha", false, false],
    ["APISelfSubjectReview", "GA", true, true],
  ];
  for (const [name, stage, on, locked] of cases) {
    await t.step(name, () => {
      assert.equal(gates.enabled(name), on);
      assert.equal(gates.spec(name)?.stage, stage);
      assert.equal(gates.spec(name)?.locked ?? false, locked);
    });
  }
});

Deno.test("FeatureGates.parse() applies valid values and reports every problem", async (t) => {
  const cases: {
    name: string;
    flag: string;
    errors: string[];
    warnings?: string[];
    expect?: Partial<Record<TestGate, boolean>>;
  }[] = [
    { name: "empty", flag: "", errors: [], expect: { Alpha1: false, Beta1: true } },
    {
      name: "two gates",
      flag: "Alpha1=true,Beta1=false",
      errors: [],
      expect: { Alpha1: true, Beta1: false },
    },
    {
      name: "spaces and empty entries",
      flag: " Alpha1 = true ,, Beta1=false,",
      errors: [],
      expect: { Alpha1: true, Beta1: false },
    },
    {
      name: "Go booleans",
      flag: "Alpha1=T,Beta1=0",
      errors: [],
      expect: { Alpha1: true, Beta1: false },
    },
    {
      name: "later entry wins",
      flag: "Alpha1=true,Alpha1=false",
      errors: [],
      expect: { Alpha1: false },
    },
    {
      name: "all problems at once, nothing applied",
      flag: "Alpha1=true,Nope=true,Beta1=maybe,Stable=false,Bare",
      errors: [
        'invalid value of Beta1=maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax',
        "missing bool value for Bare",
        "unrecognized feature gate: Nope",
        "cannot set feature gate Stable to false, feature is locked to true",
      ],
      expect: { Alpha1: false, Beta1: true },
    },
    {
      name: "locked GA gate set to its default warns",
      flag: "Stable=true",
      errors: [],
      warnings: ["Setting GA feature gate Stable=true. It will be removed in a future release."],
      expect: { Stable: true },
    },
    {
      name: "deprecated gate warns",
      flag: "Old=true",
      errors: [],
      warnings: [
        "Setting deprecated feature gate Old=true. It will be removed in a future release.",
      ],
      expect: { Old: true },
    },
    {
      name: "AllAlpha turns on alpha gates not set explicitly",
      flag: "AllAlpha=true",
      errors: [],
      expect: { Alpha1: true, Beta1: true, Old: false },
    },
    {
      name: "explicit value beats AllBeta",
      flag: "AllBeta=false,Beta1=true",
      errors: [],
      expect: { Beta1: true },
    },
    {
      name: "AllBeta=false turns off beta gates",
      flag: "AllBeta=false",
      errors: [],
      expect: { Beta1: false },
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      const gates = new FeatureGates<TestGate>(TEST_GATES);
      const got = gates.parse(c.flag);
      assert.deepEqual(got.errors, c.errors);
      assert.deepEqual(got.warnings, c.warnings ?? []);
      for (const [k, v] of Object.entries(c.expect ?? {})) {
        assert.equal(gates.enabled(k as TestGate), v, k);
      }
    });
  }
});

Deno.test("FeatureGates.set() validates a configuration map", async (t) => {
  const cases: {
    name: string;
    input: Record<string, unknown> | Map<string, unknown>;
    errors: string[];
  }[] = [
    { name: "valid object", input: { Alpha1: true }, errors: [] },
    { name: "valid map", input: new Map([["Alpha1", true]]), errors: [] },
    {
      name: "non-boolean values and unknown gates",
      input: { Alpha1: "yes", Beta1: 1, Nope: false },
      errors: [
        "invalid value of Alpha1=yes, err: feature gate values must be true or false",
        "invalid value of Beta1=1, err: feature gate values must be true or false",
        "unrecognized feature gate: Nope",
      ],
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      const gates = new FeatureGates<TestGate>(TEST_GATES);
      assert.deepEqual(gates.set(c.input).errors, c.errors);
      assert.equal(gates.enabled("Alpha1"), c.errors.length === 0);
    });
  }
});

Deno.test("FeatureGates.enabled() throws on an unregistered gate", () => {
  const gates = new FeatureGates<string>(TEST_GATES);
  assert.throws(() => gates.enabled("Unknown"), RangeError);
});

Deno.test("FeatureGates.knownFeatures() lists settable gates like Kubernetes' help", () => {
  const gates = new FeatureGates<TestGate>(TEST_GATES);
  assert.deepEqual(gates.knownFeatures(), [
    "AllAlpha=true|false (ALPHA - default=false)",
    "AllBeta=true|false (BETA - default=false)",
    "Alpha1=true|false (ALPHA - default=false)",
    "Beta1=true|false (BETA - default=true)",
  ]);
});

Deno.test("FeatureGates.toString() renders explicit settings", () => {
  const gates = new FeatureGates<TestGate>(TEST_GATES);
  gates.parse("Beta1=false,Alpha1=true");
  assert.equal(gates.toString(), "Alpha1=true,Beta1=false");
});

Deno.test("parseGoBool() accepts exactly Go's spellings", async (t) => {
  const cases: [string, boolean | undefined][] = [
    ["1", true],
    ["t", true],
    ["T", true],
    ["TRUE", true],
    ["true", true],
    ["True", true],
    ["0", false],
    ["f", false],
    ["F", false],
    ["FALSE", false],
    ["false", false],
    ["False", false],
    ["tRuE", undefined],
    ["yes", undefined],
    ["", undefined],
    ["2", undefined],
  ];
  for (const [input, want] of cases) {
    await t.step(JSON.stringify(input), () => assert.equal(parseGoBool(input), want));
  }
});

Deno.test("featureGatesFromFlag() returns gates, errors and warnings", async (t) => {
  await t.step("undefined flag gives defaults", () => {
    const r = featureGatesFromFlag(undefined, KNOWN_FEATURES);
    assert.deepEqual([r.errors, r.warnings], [[], []]);
    assert.equal(r.gates.enabled("APIResponseCompression"), true);
  });
  await t.step("disabling compression", () => {
    const r = featureGatesFromFlag("APIResponseCompression=false", KNOWN_FEATURES);
    assert.deepEqual(r.errors, []);
    assert.equal(r.gates.enabled("APIResponseCompression"), false);
  });
  await t.step("disabling a locked GA gate fails", () => {
    const r = featureGatesFromFlag("APISelfSubjectReview=false,WatchList=true", KNOWN_FEATURES);
    assert.deepEqual(r.errors, [
      "cannot set feature gate APISelfSubjectReview to false, feature is locked to true",
    ]);
    assert.equal(r.gates.enabled("WatchList"), false);
  });
  await t.step("GA gate set to its default warns", () => {
    const r = featureGatesFromFlag("APISelfSubjectReview=true", KNOWN_FEATURES);
    assert.deepEqual(r.errors, []);
    assert.equal(r.warnings.length, 1);
  });
  await t.step("custom registry", () => {
    const r = featureGatesFromFlag<TestGate>("Old=false", TEST_GATES);
    assert.equal(r.warnings.length, 1);
  });
});

Deno.test("FeatureGates.all() lists every gate with its spec and effective state", () => {
  const gates = new FeatureGates<TestGate>(TEST_GATES);
  gates.parse("AllAlpha=true,Beta1=false");
  assert.deepEqual(
    gates.all().map(({ name, spec, enabled }) => `${name}:${spec.stage}:${enabled}`),
    [
      "AllAlpha:Alpha:true",
      "AllBeta:Beta:false",
      "Alpha1:Alpha:true",
      "Beta1:Beta:false",
      "Old:Deprecated:false",
      "Stable:GA:true",
    ],
  );
});

Deno.test("featureGatesFlagHelp() is Kubernetes' flag help with one line per settable gate", () => {
  assert.equal(
    featureGatesFlagHelp(new FeatureGates<TestGate>(TEST_GATES)),
    "A set of key=value pairs that describe feature gates for alpha/experimental features. " +
      "Options are:\n" +
      "AllAlpha=true|false (ALPHA - default=false)\n" +
      "AllBeta=true|false (BETA - default=false)\n" +
      "Alpha1=true|false (ALPHA - default=false)\n" +
      "Beta1=true|false (BETA - default=true)",
  );
});
