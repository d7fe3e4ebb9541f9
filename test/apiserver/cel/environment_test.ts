import assert from "node:assert";
import {
  admissionPolicyEnvironment,
  authorizationMatchEnvironment,
  CelEnvironment,
  claimMappingEnvironment,
  crdValidationEnvironment,
  userValidationEnvironment,
} from "../../../apiserver/cel/mod.ts";

const schema = {
  type: "object",
  properties: { replicas: { type: "integer" }, name: { type: "string" } },
};

Deno.test("CelEnvironment.compile() caches compiled programs per expression", () => {
  const env = crdValidationEnvironment(schema);
  const a = env.compile("self.replicas > 1");
  const b = env.compile("self.replicas > 1");
  assert.ok(a.ok && b.ok);
  assert.strictEqual(a.program, b.program);
  assert.strictEqual(env.compile("1 +"), env.compile("1 +"));
});

Deno.test("CelEnvironment.compile() reports errors with positions", async (t) => {
  const env = crdValidationEnvironment(schema);
  const rows: [string, string, number, number][] = [
    ["self.replicas +", "parse_error", 1, 16],
    ["self.nope == 1", "no_such_key", 1, 6],
    ["self.replicas == 'a'", "no_such_overload", 1, 1],
    ["self.name\n  .matches('[')", "type_error", 2, 12],
    ["unknown > 1", "unknown_variable", 1, 1],
    ["[1, 'a']", "heterogeneous_list_element", 1, 5],
  ];
  for (const [expr, code, line, column] of rows) {
    await t.step(expr, () => {
      const r = env.compile(expr);
      assert.ok(!r.ok);
      assert.equal(r.errors[0].code, code, r.errors[0].detail);
      assert.deepStrictEqual(
        [r.errors[0].position?.line, r.errors[0].position?.column],
        [line, column],
        r.errors[0].detail,
      );
      assert.match(r.errors[0].detail, /^<input>:\d+:\d+: /);
    });
  }
});

Deno.test("CelProgram.evaluate() returns runtime errors as values", async (t) => {
  const env = CelEnvironment.create({ variables: [{ name: "x" }] });
  const rows: [string, Record<string, unknown>, string][] = [
    ["x.missing", { x: {} }, "no_such_key"],
    ["x + 1", { x: 9223372036854775807n }, "numeric_overflow"],
    ["x / 0", { x: 1n }, "division_by_zero"],
    ["-x", { x: -9223372036854775808n }, "numeric_overflow"],
    ["x[3]", { x: [1n] }, "index_out_of_range"],
    ["int(x)", { x: 1e30 }, "numeric_overflow"],
    ["x.startsWith('a')", { x: 1n }, "no_matching_overload"],
    ["x", {}, "unknown_variable"],
    ["x", { x: Symbol("bad") }, "unsupported_type"],
  ];
  for (const [expr, vars, code] of rows) {
    await t.step(expr, () => {
      const c = env.compile(expr);
      assert.ok(c.ok, c.ok ? "" : c.errors[0].detail);
      const r = c.program.evaluate(vars);
      assert.ok(!r.ok, `expected error, got ${Deno.inspect(r.ok && r.value)}`);
      assert.equal(r.error.code, code, r.error.message);
    });
  }
});

Deno.test("crdValidationEnvironment() types self and oldSelf from the schema", () => {
  const env = crdValidationEnvironment(schema);
  const c = env.compile("self.replicas >= oldSelf.replicas && self == self");
  assert.ok(c.ok);
  assert.equal(c.program.outputType, "bool");
  const vars = env.activation({ self: { replicas: 3 }, oldSelf: { replicas: 2 } });
  const r = c.program.evaluate(vars);
  assert.deepStrictEqual(r.ok && r.value, true);
  assert.ok(!crdValidationEnvironment(schema, { oldSelf: false }).compile("oldSelf").ok);
});

Deno.test("the consumer environments declare their variables", async (t) => {
  const rows: [string, CelEnvironment, string, Record<string, unknown>, unknown][] = [
    [
      "admission",
      admissionPolicyEnvironment(),
      "request.operation == 'CREATE' && object.spec.replicas > 1 && request.userInfo.username == 'u'",
      {
        request: { operation: "CREATE", userInfo: { username: "u" } },
        object: { spec: { replicas: 2 } },
      },
      true,
    ],
    [
      "claims",
      claimMappingEnvironment(),
      "claims.sub + ':' + claims.groups.join(',')",
      { claims: { sub: "alice", groups: ["a", "b"] } },
      "alice:a,b",
    ],
    [
      "user",
      userValidationEnvironment(),
      "!user.username.startsWith('system:') && 'dev' in user.groups",
      { user: { username: "alice", groups: ["dev"] } },
      true,
    ],
    [
      "authz match",
      authorizationMatchEnvironment(),
      "has(request.resourceAttributes) && request.resourceAttributes.namespace == 'kube-system'",
      { request: { resourceAttributes: { namespace: "kube-system" }, user: "u" } },
      true,
    ],
  ];
  for (const [name, env, expr, vars, want] of rows) {
    await t.step(name, () => {
      const c = env.compile(expr);
      assert.ok(c.ok, c.ok ? "" : c.errors[0].detail);
      const r = c.program.evaluate(env.activation(vars));
      assert.ok(r.ok, r.ok ? "" : r.error.detail);
      assert.deepStrictEqual(r.value, want);
    });
  }
  await t.step("typed request rejects unknown fields at compile time", () => {
    assert.ok(!userValidationEnvironment().compile("user.nope == 1").ok);
    assert.ok(!authorizationMatchEnvironment().compile("request.bogus").ok);
  });
});
