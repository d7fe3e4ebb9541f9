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
