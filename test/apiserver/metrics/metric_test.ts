import assert from "node:assert/strict";
import { Counter, Histogram } from "../../../apiserver/metrics/metric.ts";

Deno.test("Counter.inc() keeps one series per combination of label values", async (t) => {
  const c = new Counter({ name: "things_total", help: "Things.", labels: ["a", "b"] });
  await t.step("key order does not matter", () => {
    c.inc({ a: "1", b: "2" });
    c.inc({ b: "2", a: "1" });
    assert.equal(c.get({ a: "1", b: "2" }), 2);
  });
  await t.step("a missing label is the empty value", () => {
    c.inc({ a: "1" });
    assert.equal(c.get({ a: "1", b: "" }), 1);
  });
  await t.step("values that would join alike stay apart", () => {
    c.inc({ a: "x,y", b: "" });
    c.inc({ a: "x", b: "y" });
    assert.equal(c.get({ a: "x,y", b: "" }), 1);
    assert.equal(c.get({ a: "x", b: "y" }), 1);
  });
  await t.step("numbers and booleans are their strings", () => {
    c.inc({ a: 5, b: true });
    assert.equal(c.get({ a: "5", b: "true" }), 1);
  });
  await t.step("an unknown label throws", () => {
    assert.throws(() => c.inc({ c: "1" }), /has no label "c"/);
  });
  await t.step("reset() forgets every series", () => {
    c.reset();
    assert.equal(c.empty, true);
    assert.equal(c.get({ a: "1", b: "2" }), 0);
    assert.deepEqual(c.expose("Things.").filter((l) => !l.startsWith("#")), [
      'things_total{a="1",b="2"} 0',
    ]);
  });
});

Deno.test("Histogram.observe() of labelled and unlabelled metrics", () => {
  const h = new Histogram({ name: "lat_seconds", help: "Latency.", labels: ["verb"] });
  h.observe({ verb: "GET" }, 0.2);
  h.observe({ verb: "GET" }, 0.4);
  assert.deepEqual(h.get({ verb: "GET" }), { count: 2, sum: 0.6000000000000001 });
  const plain = new Histogram({ name: "plain_seconds", help: "Plain." });
  plain.observe(undefined, 1);
  plain.observe({}, 1);
  assert.equal(plain.get().count, 2);
});

Deno.test("expose() sorts label names and series, escapes values and puts le last", () => {
  const h = new Histogram({ name: "h_seconds", help: "H.", labels: ["z", "a"], buckets: [0.5] });
  h.observe({ z: "1", a: 'q"\\\n' }, 0.25);
  h.observe({ z: "0", a: "x" }, 2);
  assert.deepEqual(h.expose("H.").filter((l) => !l.startsWith("#")), [
    'h_seconds_bucket{a="q\\"\\\\\\n",z="1",le="0.5"} 1',
    'h_seconds_bucket{a="q\\"\\\\\\n",z="1",le="+Inf"} 1',
    'h_seconds_sum{a="q\\"\\\\\\n",z="1"} 0.25',
    'h_seconds_count{a="q\\"\\\\\\n",z="1"} 1',
    'h_seconds_bucket{a="x",z="0",le="0.5"} 0',
    'h_seconds_bucket{a="x",z="0",le="+Inf"} 1',
    'h_seconds_sum{a="x",z="0"} 2',
    'h_seconds_count{a="x",z="0"} 1',
  ]);
});
