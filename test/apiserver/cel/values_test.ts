import assert from "node:assert";
import {
  crdValidationEnvironment,
  Duration,
  parseGoDuration,
  toCelValue,
} from "../../../apiserver/cel/mod.ts";
import type { CelSchema } from "../../../apiserver/cel/mod.ts";

const schema: CelSchema = {
  type: "object",
  properties: {
    replicas: { type: "integer" },
    ratio: { type: "number" },
    port: { "x-kubernetes-int-or-string": true },
    data: { type: "string", format: "byte" },
    day: { type: "string", format: "date" },
    at: { type: "string", format: "date-time" },
    timeout: { type: "string", format: "duration" },
    tags: { type: "array", items: { type: "string" }, "x-kubernetes-list-type": "set" },
    ports: {
      type: "array",
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["name"],
      items: {
        type: "object",
        properties: { name: { type: "string" }, port: { type: "integer" } },
      },
    },
    order: { type: "array", items: { type: "string" } },
    labels: { type: "object", additionalProperties: { type: "string" } },
    "foo-bar": { type: "string" },
    "a.b": { type: "string" },
    "x/y": { type: "string" },
    "a__b": { type: "string" },
    namespace: { type: "string" },
    "1bad": { type: "string" },
    free: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
    opt: { type: "string", nullable: true },
  },
};

const object = {
  replicas: 3,
  ratio: 2,
  port: "http",
  data: btoa("hi"),
  day: "2024-01-02",
  at: "2024-01-02T03:04:05Z",
  timeout: "1m30s",
  tags: ["a", "b"],
  ports: [{ name: "a", port: 1 }, { name: "b", port: 2 }],
  order: ["a", "b"],
  labels: { app: "x", "k8s.io/name": "y" },
  "foo-bar": "dash",
  "a.b": "dot",
  "x/y": "slash",
  "a__b": "under",
  namespace: "kw",
  "1bad": "unreachable",
  free: { n: 5, f: 1.5, nested: { list: [1, "x"] } },
  opt: null,
};

const other = {
  ...object,
  tags: ["b", "a"],
  ports: [{ name: "b", port: 2 }, { name: "a", port: 1 }],
  order: ["b", "a"],
  port: 8080,
};

Deno.test("toCelValue() follows Kubernetes' type mapping", async (t) => {
  const env = crdValidationEnvironment(schema);
  const vars = env.activation({ self: object, oldSelf: other });
  const rows: [string, unknown][] = [
    ["self.replicas + 1 == 4", true],
    ["type(self.replicas) == int", true],
    ["self.ratio / 4.0", 0.5],
    ["self.port == 'http' && oldSelf.port == 8080", true],
    ["type(oldSelf.port) == int", true],
    ["self.data == b'hi'", true],
    ["self.day == timestamp('2024-01-02T00:00:00Z')", true],
    ["self.at.getHours()", 3n],
    ["self.timeout == duration('90s')", true],
    ["self.tags == oldSelf.tags", true],
    ["self.ports == oldSelf.ports", true],
    ["self.order == oldSelf.order", false],
    ["self.labels['k8s.io/name']", "y"],
    [
      "self.foo__dash__bar + self.a__dot__b + self.x__slash__y + self.a__underscores__b",
      "dashdotslashunder",
    ],
    ["self.__namespace__", "kw"],
    ["self.free.n + 1", 6n],
    ["self.free.f", 1.5],
    ["self.free.nested.list[1]", "x"],
    ["has(self.opt)", false],
    ["'b' in self.tags", true],
    ["self.ports.exists(p, p.name == 'b' && p.port == 2)", true],
  ];
  for (const [expr, want] of rows) {
    await t.step(expr, () => {
      const c = env.compile(expr);
      assert.ok(c.ok, c.ok ? "" : c.errors[0].detail);
      const r = c.program.evaluate(vars);
      assert.ok(r.ok, r.ok ? "" : r.error.detail);
      assert.deepStrictEqual(r.value, want);
    });
  }
  await t.step("unreachable names are not declared", () => {
    assert.ok(!env.compile("self.1bad").ok);
    const v = toCelValue(object, schema) as Record<string, unknown>;
    assert.ok(!("1bad" in v));
  });
  await t.step("typed fields are checked, dynamic ones pass", () => {
    assert.ok(!env.compile("self.replicas == 'x'").ok);
    assert.ok(!env.compile("self.unknownField").ok);
    assert.ok(env.compile("self.free.anything == 'x'").ok);
    assert.ok(env.compile("self.port == 'x' || self.port == 1").ok);
  });
});

Deno.test("parseGoDuration() parses Go durations", async (t) => {
  const rows: [string, bigint, number][] = [
    ["1h30m", 5400n, 0],
    ["1.5s", 1n, 500_000_000],
    ["-2ms", 0n, -2_000_000],
    ["0", 0n, 0],
    // Go's time.ParseDuration takes a leading "+" and a point with no digits after it.
    ["+5s", 5n, 0],
    ["1.s", 1n, 0],
    [".5s", 0n, 500_000_000],
  ];
  for (const [s, sec, ns] of rows) {
    await t.step(s, () => {
      const d = parseGoDuration(s) as Duration;
      assert.deepStrictEqual([d.seconds, d.nanos], [sec, ns]);
    });
  }
  await t.step("invalid", () => assert.equal(parseGoDuration("5x"), undefined));
  await t.step("no unit", () => assert.equal(parseGoDuration("5"), undefined));
  await t.step("beyond int64 nanoseconds", () => {
    assert.equal(parseGoDuration("9223372036854775808ns"), undefined);
  });
});
