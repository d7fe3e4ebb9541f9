import assert from "node:assert";
import {
  CelEnvironment,
  CostBudget,
  crdValidationEnvironment,
} from "../../../apiserver/cel/mod.ts";

const env = CelEnvironment.create({ variables: [{ name: "x" }] });

function compile(expr: string) {
  const c = env.compile(expr);
  if (!c.ok) throw new Error(c.errors[0].detail);
  return c.program;
}

Deno.test("CelProgram.evaluate() counts deterministic cost", async (t) => {
  const list = Array.from({ length: 100 }, (_, i) => BigInt(i));
  const rows: [string, Record<string, unknown>, number][] = [
    ["x < 1", { x: 0n }, 2],
    ["[1, 2, 3]", {}, 40],
    ["x.all(i, i < 1000)", { x: list }, 202],
    ["x.matches('^[a-z]+$')", { x: "a".repeat(40) }, 10 * 2 + 1],
  ];
  for (const [expr, vars, want] of rows) {
    await t.step(expr, () => {
      const a = compile(expr).evaluate(vars);
      const b = compile(expr).evaluate(vars);
      assert.ok(a.ok && b.ok);
      assert.equal(a.cost, want);
      assert.equal(b.cost, a.cost);
    });
  }
});

Deno.test("CelProgram.evaluate() stops at the per-expression budget", () => {
  const list = Array.from({ length: 1000 }, (_, i) => BigInt(i));
  const p = compile("x.all(i, x.all(j, i + j >= 0))");
  const r = p.evaluate({ x: list }, { costLimit: 10_000 });
  assert.ok(!r.ok);
  assert.equal(r.error.code, "cost_limit_exceeded");
  assert.match(r.error.message, /cost limit exceeded/);
  assert.ok(r.cost > 10_000 && r.cost < 10_100);
  const errorsAbsorbed = compile("x.exists(i, x.filter(j, j > i).size() < 0) || true").evaluate({
    x: list,
  }, { costLimit: 5000 });
  assert.ok(!errorsAbsorbed.ok && errorsAbsorbed.error.code === "cost_limit_exceeded");
});

Deno.test("CelProgram.evaluate() draws from a per-object budget", () => {
  const budget = new CostBudget(100);
  const p = compile("x.all(i, i >= 0)");
  const vars = { x: Array.from({ length: 10 }, (_, i) => BigInt(i)) };
  const first = p.evaluate(vars, { budget });
  assert.ok(first.ok);
  assert.equal(budget.remaining, 100 - first.cost);
  let last: ReturnType<typeof p.evaluate> = first;
  for (let i = 0; i < 5 && last.ok; i++) last = p.evaluate(vars, { budget });
  assert.ok(!last.ok);
  assert.equal(last.error.code, "cost_limit_exceeded");
  assert.match(last.error.message, /per-object/);
});

Deno.test("CelProgram.evaluate() without tracking reports zero cost", () => {
  const r = compile("x + 1").evaluate({ x: 1n }, { trackCost: false });
  assert.deepStrictEqual(r, { ok: true, value: 2n, cost: 0 });
});

Deno.test("CelProgram.estimateCost() bounds cost with schema size limits", async (t) => {
  const item = { type: "object", properties: { name: { type: "string", maxLength: 10 } } };
  const bounded = crdValidationEnvironment({
    type: "object",
    properties: {
      items: { type: "array", maxItems: 10, items: item },
      s: { type: "string", maxLength: 64 },
    },
  }, { oldSelf: false });
  const unbounded = crdValidationEnvironment({
    type: "object",
    properties: { items: { type: "array", items: item }, s: { type: "string" } },
  }, { oldSelf: false });
  const rows: [string, number, number][] = [
    ["self.s == self.s", 10, 14],
    ["self.items.all(i, i.name.startsWith('a'))", 30, 100],
    ["self.items.all(i, self.items.all(j, i.name == j.name))", 300, 3000],
    ["self.s.matches('[a-z]+')", 16, 48],
  ];
  for (const [expr, low, high] of rows) {
    await t.step(expr, () => {
      const b = bounded.compile(expr), u = unbounded.compile(expr);
      assert.ok(b.ok && u.ok);
      const eb = b.program.estimateCost(), eu = u.program.estimateCost();
      assert.ok(eb.max >= low && eb.max <= high, `bounded ${eb.max}`);
      assert.ok(eu.max > eb.max, `unbounded ${eu.max} <= bounded ${eb.max}`);
      assert.ok(eb.min <= eb.max);
    });
  }
  await t.step("nested unbounded loops exceed the static limit", () => {
    const u = unbounded.compile("self.items.all(i, self.items.all(j, i.name == j.name))");
    assert.ok(u.ok && u.program.estimateCost().max > 10_000_000);
  });
});
