import assert from "node:assert/strict";
import { newRequirement } from "../../../shared/selectors/label_requirement.ts";
import {
  LabelSelector,
  labelSelectorFromObject,
  labelSelectorFromSet,
  parseLabelSelector,
} from "../../../shared/selectors/label_selector.ts";
import { SelectorError } from "../../../shared/selectors/selector_error.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";

const QNAME_REGEX = "regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'";
const VALUE_RULE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

Deno.test("parseLabelSelector() parses the grammar into canonical requirements", async (t) => {
  const cases: [string, string][] = [
    ["", ""],
    ["a=b", "a=b"],
    ["a==b", "a==b"],
    ["a!=b", "a!=b"],
    ["  a = b  ", "a=b"],
    ["\ta\n=\rb", "a=b"],
    ["a", "a"],
    ["!a", "!a"],
    ["! a", "!a"],
    ["env in (prod, dev)", "env in (dev,prod)"],
    ["env notin (prod)", "env notin (prod)"],
    ["x in (foo,,baz),y,z notin ()", "x in (,baz,foo),y,z notin ()"],
    ["x in (a,a)", "x in (a)"],
    ["x in (,)", "x in ()"],
    ["b=1,a=2", "a=2,b=1"],
    ["a=", "a="],
    ["a>1", "a>1"],
    ["a<10", "a<10"],
    ["in=in", "in=in"],
    ["x in (in,notin)", "x in (in,notin)"],
    ["example.com/app=web", "example.com/app=web"],
  ];
  for (const [input, canonical] of cases) {
    await t.step(JSON.stringify(input), () => {
      assert.equal(parseLabelSelector(input).toString(), canonical);
    });
  }
});

Deno.test("parseLabelSelector() rejects bad input with Kubernetes' messages", async (t) => {
  const cases: [string, string][] = [
    ["a b", "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"],
    ["a=b c", "found 'c', expected: ',' or 'end of string'"],
    ["a=b,", "found '', expected: identifier after ','"],
    [",a", "found ',', expected: !, identifier, or 'end of string'"],
    ["k in (a", "unable to parse requirement: found '', expected: ',' or ')'"],
    ["k in a", "unable to parse requirement: found 'a' expected: '('"],
    ["a=(", "unable to parse requirement: found '(', expected: identifier"],
    ["!!a", "unable to parse requirement: found '!', expected: identifier"],
    ["a=>", "unable to parse requirement: found '>', expected: identifier"],
    ["a=b<", "found '<', expected: ',' or 'end of string'"],
    [
      "-x",
      `unable to parse requirement: <nil>: Invalid value: "-x": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', ${QNAME_REGEX})`,
    ],
    ["a=-b", `unable to parse requirement: values[0][a]: Invalid value: "-b": ${VALUE_RULE}`],
    [
      "a in (-x,-y)",
      `unable to parse requirement: [values[0][a]: Invalid value: "-x": ${VALUE_RULE}, values[1][a]: Invalid value: "-y": ${VALUE_RULE}]`,
    ],
    [
      "a>x",
      `unable to parse requirement: values[0]: Invalid value: "x": for 'Gt', 'Lt' operators, the value must be an integer`,
    ],
  ];
  for (const [input, message] of cases) {
    await t.step(JSON.stringify(input), () => {
      assert.throws(() => parseLabelSelector(input), (e: unknown) => {
        assert.ok(e instanceof SelectorError);
        assert.ok(e instanceof StatusError);
        assert.equal(e.code, 400);
        assert.equal(e.reason, "BadRequest");
        assert.equal(e.message, message);
        return true;
      });
    });
  }
});

Deno.test("LabelSelector.matches() applies every operator", async (t) => {
  const labels = { env: "prod", tier: "web", n: "5" };
  const cases: [string, boolean][] = [
    ["", true],
    ["env=prod", true],
    ["env==prod", true],
    ["env=dev", false],
    ["env!=dev", true],
    ["missing!=x", true],
    ["env in (dev,prod)", true],
    ["env notin (dev,prod)", false],
    ["missing notin (a)", true],
    ["missing in (a)", false],
    ["env", true],
    ["missing", false],
    ["!missing", true],
    ["!env", false],
    ["env=prod,tier=web", true],
    ["env=prod,tier=db", false],
    ["n>4", true],
    ["n<5", false],
    ["env>1", false],
    ["missing=", false],
  ];
  for (const [sel, want] of cases) {
    await t.step(
      sel || "(empty)",
      () => assert.equal(parseLabelSelector(sel).matches(labels), want),
    );
  }
});

Deno.test("LabelSelector.everything() and nothing() select all and none", () => {
  assert.equal(LabelSelector.everything().empty(), true);
  assert.equal(LabelSelector.everything().matches({ a: "b" }), true);
  assert.equal(LabelSelector.nothing().empty(), false);
  assert.equal(LabelSelector.nothing().matches({}), false);
  assert.equal(parseLabelSelector("").empty(), true);
  assert.equal(parseLabelSelector("a").empty(), false);
});

Deno.test("LabelSelector.requiresExactMatch() returns pinned values", () => {
  const sel = parseLabelSelector("a=1,b in (2),c in (3,4),d!=5");
  assert.equal(sel.requiresExactMatch("a"), "1");
  assert.equal(sel.requiresExactMatch("b"), "2");
  assert.equal(sel.requiresExactMatch("c"), undefined);
  assert.equal(sel.requiresExactMatch("d"), undefined);
  assert.equal(sel.requiresExactMatch("e"), undefined);
});

Deno.test("labelSelectorFromObject() converts matchLabels and matchExpressions", async (t) => {
  await t.step("null selects nothing, empty selects everything", () => {
    assert.equal(labelSelectorFromObject(null).matches({}), false);
    assert.equal(labelSelectorFromObject({}).empty(), true);
  });
  await t.step("all operators", () => {
    const sel = labelSelectorFromObject({
      matchLabels: { app: "web" },
      matchExpressions: [
        { key: "env", operator: "In", values: ["prod", "stage"] },
        { key: "tier", operator: "NotIn", values: ["db"] },
        { key: "team", operator: "Exists" },
        { key: "legacy", operator: "DoesNotExist" },
      ],
    });
    assert.equal(sel.toString(), "app=web,env in (prod,stage),!legacy,team,tier notin (db)");
    assert.equal(sel.matches({ app: "web", env: "prod", team: "x" }), true);
    assert.equal(sel.matches({ app: "web", env: "prod", team: "x", legacy: "1" }), false);
  });
  await t.step("unknown operator", () => {
    assert.throws(
      () => labelSelectorFromObject({ matchExpressions: [{ key: "a", operator: "Foo" }] }),
      { message: '"Foo" is not a valid label selector operator' },
    );
  });
  await t.step("In without values", () => {
    assert.throws(
      () => labelSelectorFromObject({ matchExpressions: [{ key: "a", operator: "In" }] }),
      {
        message:
          "values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty",
      },
    );
  });
  await t.step("Exists with values", () => {
    assert.throws(
      () =>
        labelSelectorFromObject({
          matchExpressions: [{ key: "a", operator: "Exists", values: ["x"] }],
        }),
      {
        message:
          'values: Invalid value: []string{"x"}: values set must be empty for exists and does not exist',
      },
    );
  });
});

Deno.test("newRequirement() validates the key", () => {
  assert.throws(() => newRequirement("a/b/c", "exists", []), (e: unknown) => {
    assert.ok(e instanceof SelectorError);
    assert.match(e.message, /^key: Invalid value: "a\/b\/c": a qualified name must consist/);
    return true;
  });
});

Deno.test("labelSelectorFromSet() requires every pair", () => {
  const sel = labelSelectorFromSet({ b: "2", a: "1" });
  assert.equal(sel.toString(), "a=1,b=2");
  assert.equal(sel.matches({ a: "1", b: "2", c: "3" }), true);
  assert.equal(sel.matches({ a: "1" }), false);
  assert.equal(labelSelectorFromSet({}).empty(), true);
});
