import assert from "node:assert/strict";
import {
  createSliMetrics,
  MetricsLifecycle,
  MetricsRegistry,
  validateMetricsFlags,
} from "../../../apiserver/metrics/mod.ts";

/** The sample lines of `name` in an exposition (HELP/TYPE excluded). */
function samples(text: string, name: string): string[] {
  return text.split("\n").filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
}

Deno.test("validateMetricsFlags() reports each bad metric flag as Kubernetes does", async (t) => {
  await t.step("valid", () => {
    assert.deepEqual(validateMetricsFlags({}), []);
    assert.deepEqual(
      validateMetricsFlags({ showHiddenMetricsForVersion: "1.31", disabledMetrics: ["a_b:c"] }),
      [],
    );
  });
  await t.step("both flags bad at once", () => {
    assert.deepEqual(
      validateMetricsFlags({
        showHiddenMetricsForVersion: "1.29",
        disabledMetrics: ["ok_total", "bad-name"],
      }),
      [
        "--show-hidden-metrics-for-version must be omitted or have the value '1.31'. Only the previous minor version is allowed",
        '--disabled-metrics must be fully qualified metric names matching "^[a-zA-Z_:][a-zA-Z0-9_:]*$", got "bad-name"',
      ],
    );
  });
  await t.step("the previous minor of another release", () => {
    assert.deepEqual(validateMetricsFlags({ showHiddenMetricsForVersion: "1.31" }, "1.33"), [
      "--show-hidden-metrics-for-version must be omitted or have the value '1.32'. Only the previous minor version is allowed",
    ]);
  });
  await t.step("the lifecycle refuses what validation refuses", () => {
    assert.throws(() => new MetricsLifecycle({ showHiddenMetricsForVersion: "1.30" }), TypeError);
  });
});

Deno.test("MetricsRegistry.registerMetaMetrics() counts registered, hidden and disabled metrics", async () => {
  const r = new MetricsRegistry({ disabledMetrics: ["dropped_total", "never_defined_total"] });
  r.registerMetaMetrics();
  r.counter({ name: "alpha_total", help: "A." });
  r.counter({ name: "stable_total", help: "S.", stabilityLevel: "STABLE" });
  r.counter({ name: "old_total", help: "O.", deprecatedVersion: "1.31.0" });
  r.counter({ name: "older_total", help: "O.", deprecatedVersion: "1.29.0" });
  r.counter({ name: "dropped_total", help: "D.", stabilityLevel: "STABLE" });
  const text = await r.exposition();
  assert.deepEqual(samples(text, "registered_metrics_total"), [
    'registered_metrics_total{deprecated_version="",stability_level="ALPHA"} 1',
    'registered_metrics_total{deprecated_version="",stability_level="BETA"} 3',
    'registered_metrics_total{deprecated_version="",stability_level="STABLE"} 1',
    'registered_metrics_total{deprecated_version="1.31.0",stability_level="ALPHA"} 1',
  ]);
  assert.deepEqual(samples(text, "hidden_metrics_total"), ["hidden_metrics_total 2"]);
  assert.deepEqual(samples(text, "disabled_metrics_total"), ["disabled_metrics_total 2"]);
  assert.ok(
    text.includes(
      "# HELP registered_metrics_total [BETA] The count of registered metrics broken by stability level and deprecation version.\n",
    ),
  );
  assert.ok(text.includes("# HELP old_total [ALPHA] (Deprecated since 1.31.0) O.\n"));
  assert.deepEqual(samples(text, "older_total"), []);
  assert.deepEqual(samples(text, "dropped_total"), []);
  assert.deepEqual(samples(text, "alpha_total"), ["alpha_total 0"]);
});

Deno.test("MetricsLifecycle: --show-hidden-metrics-for-version=1.31 at start shows the metrics 1.31 showed", async () => {
  const warnings: string[] = [];
  const r = new MetricsRegistry({
    showHiddenMetricsForVersion: "1.31",
    disabledMetrics: ["disabled_old_total"],
    onWarning: (m) => warnings.push(m),
  });
  r.registerMetaMetrics();
  r.counter({ name: "hidden_since_132_total", help: "H.", deprecatedVersion: "1.29.0" });
  r.counter({ name: "deleted_total", help: "D.", deprecatedVersion: "1.28.0" });
  r.counter({ name: "disabled_old_total", help: "D.", deprecatedVersion: "1.29.0" });
  const text = await r.exposition();
  assert.deepEqual(samples(text, "hidden_since_132_total"), ["hidden_since_132_total 0"]);
  assert.ok(text.includes("# HELP hidden_since_132_total [ALPHA] (Deprecated since 1.29.0) H.\n"));
  assert.deepEqual(samples(text, "deleted_total"), [], "deleted one release later");
  assert.deepEqual(samples(text, "disabled_old_total"), [], "disabling wins over showing");
  assert.ok(
    samples(text, "registered_metrics_total").includes(
      'registered_metrics_total{deprecated_version="1.29.0",stability_level="ALPHA"} 1',
    ),
  );
  assert.deepEqual(samples(text, "hidden_metrics_total"), ["hidden_metrics_total 2"]);
  assert.deepEqual(warnings, [
    "Hidden metrics (hidden_since_132_total) have been manually overridden, showing this very deprecated metric.",
    "This metric (deleted_total) has been deprecated since 1.28.0 and is hidden.",
  ]);
});

Deno.test("MetricsLifecycle warns once per deprecated metric across the process' registries", () => {
  const warnings: string[] = [];
  const lifecycle = new MetricsLifecycle({ onWarning: (m) => warnings.push(m) });
  for (let i = 0; i < 2; i++) {
    const r = new MetricsRegistry({ lifecycle });
    r.gauge({ name: "dep", help: "D.", deprecatedVersion: "1.30.0" });
  }
  assert.deepEqual(warnings, ["This metric (dep) has been deprecated since 1.30.0."]);
  assert.equal(
    lifecycle.registeredTotal.get({
      stability_level: "ALPHA",
      deprecated_version: "1.30.0",
    }),
    2,
  );
});

Deno.test("createSliMetrics() serves kubernetes_healthcheck and kubernetes_healthchecks_total", async () => {
  const main = new MetricsRegistry();
  main.registerMetaMetrics();
  const sli = createSliMetrics(main);
  sli.observeHealthcheck("ping", "readyz", true);
  sli.observeHealthcheck("etcd", "readyz", false);
  sli.observeHealthcheck("etcd", "readyz", true);
  assert.equal(
    await sli.registry.exposition(),
    [
      "# HELP kubernetes_healthcheck [STABLE] This metric records the result of a single healthcheck.",
      "# TYPE kubernetes_healthcheck gauge",
      'kubernetes_healthcheck{name="etcd",type="readyz"} 1',
      'kubernetes_healthcheck{name="ping",type="readyz"} 1',
      "# HELP kubernetes_healthchecks_total [STABLE] This metric records the results of all healthcheck.",
      "# TYPE kubernetes_healthchecks_total counter",
      'kubernetes_healthchecks_total{name="etcd",status="error",type="readyz"} 1',
      'kubernetes_healthchecks_total{name="etcd",status="success",type="readyz"} 1',
      'kubernetes_healthchecks_total{name="ping",status="success",type="readyz"} 1',
      "",
    ].join("\n"),
  );
  // Counted in the process' registered_metrics_total, as Kubernetes' global counter does.
  assert.equal(
    main.lifecycle.registeredTotal.get({
      stability_level: "STABLE",
      deprecated_version: "",
    }),
    2,
  );
});
