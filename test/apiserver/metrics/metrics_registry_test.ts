import assert from "node:assert/strict";
import { MetricsRegistry } from "../../../apiserver/metrics/mod.ts";

Deno.test("MetricsRegistry.exposition() renders counters, gauges and histograms", async () => {
  const r = new MetricsRegistry();
  const c = r.counter({ name: "requests_total", help: "Requests.", labels: ["verb", "code"] });
  c.inc({ verb: "GET", code: 200 });
  c.inc({ verb: "GET", code: 200 }, 2);
  c.inc({ code: 404, verb: "DELETE" });
  const g = r.gauge({ name: "temperature", help: "Temp\\erature\nnow.", stabilityLevel: "BETA" });
  g.set(undefined, 21.5);
  const h = r.histogram({
    name: "latency_seconds",
    help: "Latency.",
    labels: ["path"],
    buckets: [0.1, 1],
  });
  h.observe({ path: 'a"b' }, 0.05);
  h.observe({ path: 'a"b' }, 0.1);
  h.observe({ path: 'a"b' }, 3);
  r.counter({ name: "unused_total", help: "Never touched.", labels: ["x"] });
  r.counter({ name: "zero_total", help: "No labels.", stabilityLevel: "STABLE" });
  assert.equal(
    await r.exposition(),
    [
      "# HELP latency_seconds [ALPHA] Latency.",
      "# TYPE latency_seconds histogram",
      'latency_seconds_bucket{path="a\\"b",le="0.1"} 2',
      'latency_seconds_bucket{path="a\\"b",le="1"} 2',
      'latency_seconds_bucket{path="a\\"b",le="+Inf"} 3',
      'latency_seconds_sum{path="a\\"b"} 3.15',
      'latency_seconds_count{path="a\\"b"} 3',
      "# HELP requests_total [ALPHA] Requests.",
      "# TYPE requests_total counter",
      'requests_total{code="200",verb="GET"} 3',
      'requests_total{code="404",verb="DELETE"} 1',
      "# HELP temperature [BETA] Temp\\\\erature\\nnow.",
      "# TYPE temperature gauge",
      "temperature 21.5",
      "# HELP zero_total [STABLE] No labels.",
      "# TYPE zero_total counter",
      "zero_total 0",
      "",
    ].join("\n"),
  );
});

Deno.test("MetricsRegistry applies the metric lifecycle at 1.32", async (t) => {
  const cases: {
    name: string;
    deprecated?: string;
    show?: string;
    visible: boolean;
    help?: string;
    warnings: number;
  }[] = [
    { name: "not deprecated", visible: true, help: "[ALPHA] Help.", warnings: 0 },
    {
      name: "deprecated this release",
      deprecated: "1.32.0",
      visible: true,
      help: "[ALPHA] (Deprecated since 1.32.0) Help.",
      warnings: 1,
    },
    {
      name: "deprecation in the future",
      deprecated: "1.33.0",
      visible: true,
      help: "[ALPHA] Help.",
      warnings: 0,
    },
    { name: "deprecated two releases ago", deprecated: "1.30.0", visible: true, warnings: 1 },
    { name: "deprecated at current minus 3", deprecated: "1.29.0", visible: false, warnings: 1 },
    { name: "older", deprecated: "1.20.0", visible: false, warnings: 1 },
    {
      name: "shown with the previous minor",
      deprecated: "1.29.0",
      show: "1.31",
      visible: true,
      warnings: 2,
    },
    {
      name: "deleted one release later stays hidden",
      deprecated: "1.28.0",
      show: "1.31",
      visible: false,
      warnings: 1,
    },
  ];
  for (const c of cases) {
    await t.step(c.name, async () => {
      const warnings: string[] = [];
      const r = new MetricsRegistry({ onWarning: (m) => warnings.push(m) });
      const m = r.counter({ name: "m_total", help: "Help.", deprecatedVersion: c.deprecated });
      if (c.show) assert.equal(r.setShowHiddenMetricsForVersion(c.show), undefined);
      m.inc();
      const text = await r.exposition();
      assert.equal(text.includes("m_total 1"), c.visible);
      assert.equal(r.isHidden("m_total"), !c.visible);
      if (c.help) assert.ok(text.includes(`# HELP m_total ${c.help}\n`), text);
      assert.equal(warnings.length, c.warnings, warnings.join("; "));
    });
  }
});

Deno.test("MetricsRegistry.setShowHiddenMetricsForVersion() accepts only the previous minor", async (t) => {
  const cases: [string, boolean][] = [
    ["", true],
    ["1.31", true],
    ["1.30", false],
    ["1.32", false],
    ["x", false],
  ];
  for (const [value, ok] of cases) {
    await t.step(JSON.stringify(value), () => {
      const err = new MetricsRegistry().setShowHiddenMetricsForVersion(value);
      if (ok) assert.equal(err, undefined);
      else {
        assert.equal(
          err,
          "--show-hidden-metrics-for-version must be omitted or have the value '1.31'. Only the previous minor version is allowed",
        );
      }
    });
  }
});

Deno.test("MetricsRegistry rejects invalid definitions and uses", async (t) => {
  const r = new MetricsRegistry();
  r.counter({ name: "a_total", help: "A.", labels: ["x"] });
  const cases: [string, () => unknown, ErrorConstructor | RangeErrorConstructor][] = [
    ["duplicate name", () => r.counter({ name: "a_total", help: "A." }), TypeError],
    ["bad metric name", () => r.counter({ name: "1bad", help: "" }), TypeError],
    ["bad label name", () => r.gauge({ name: "g", help: "", labels: ["a-b"] }), TypeError],
    ["reserved label", () => r.gauge({ name: "g2", help: "", labels: ["__x"] }), TypeError],
    ["le on histogram", () => r.histogram({ name: "h", help: "", labels: ["le"] }), TypeError],
    ["unsorted buckets", () => r.histogram({ name: "h2", help: "", buckets: [1, 0.5] }), TypeError],
    [
      "bad deprecated version",
      () => r.counter({ name: "d_total", help: "", deprecatedVersion: "soon" }),
      TypeError,
    ],
    [
      "unknown label",
      () =>
        r.get("a_total") && (r.get("a_total") as never as { inc(l: object): void }).inc({ y: "1" }),
      TypeError,
    ],
    [
      "negative counter increment",
      () => (r.get("a_total") as never as { inc(l: object, n: number): void }).inc({}, -1),
      RangeError,
    ],
  ];
  for (const [name, fn, type] of cases) {
    await t.step(name, () => assert.throws(fn, type));
  }
});

Deno.test("Gauge.setCollector() fills the gauge at each scrape", async (t) => {
  await t.step("values from the collector", async () => {
    const r = new MetricsRegistry();
    let size = 1;
    r.gauge({ name: "size_bytes", help: "Size.", labels: ["id"] }).setCollector(
      () => [[{ id: "a" }, size]],
    );
    assert.ok((await r.exposition()).includes('size_bytes{id="a"} 1\n'));
    size = 1e9;
    assert.ok((await r.exposition()).includes('size_bytes{id="a"} 1e+09\n'));
  });
  await t.step("a failing collector omits the metric", async () => {
    const r = new MetricsRegistry();
    r.gauge({ name: "size_bytes", help: "Size.", labels: ["id"] }).setCollector(() =>
      Promise.reject(new Error("db closed"))
    );
    assert.equal(await r.exposition(), "");
  });
});
