import assert from "node:assert";
import { run, table } from "./helpers.ts";
import { testEnv } from "./helpers.ts";
import { compileRe2, Re2SyntaxError } from "../../../../apiserver/cel/mod.ts";

Deno.test("registerRegexLibrary() provides find, findAll and RE2 matches", async (t) => {
  await table(t, [
    { expr: "'abc 123 def 456'.find('[0-9]+')", want: "123" },
    { expr: "'abc'.find('[0-9]+')", want: "" },
    { expr: "'abc 123 def 456'.findAll('[0-9]+')", want: ["123", "456"] },
    { expr: "'abc 123 def 456'.findAll('[0-9]+', 1)", want: ["123"] },
    { expr: "'a1b2'.findAll('x')", want: [] },
    { expr: "'my-name'.matches('^[a-z0-9-]+$')", want: true },
    { expr: "'My'.matches('^[a-z]+$')", want: false },
    { expr: "'ABC'.matches('(?i)abc')", want: true },
    { expr: "'ab'.matches('\\\\Aab\\\\z')", want: true },
    { expr: "'foo bar'.matches('\\\\bbar\\\\b')", want: true },
    { expr: "'x9'.matches('[[:digit:]]')", want: true },
    { expr: "'é'.matches('^\\\\p{L}$')", want: true },
    { expr: "matches('abc', 'b')", want: true },
    { expr: "'a'.matches(x)", vars: { x: "(" }, error: "missing closing )" },
    { expr: "'a'.matches(x)", vars: { x: "(a)\\1" }, error: "invalid escape" },
    { expr: "'a'.find(x)", vars: { x: "(?=a)" }, error: "unsupported Perl syntax" },
  ]);
});

Deno.test("matches() finishes quickly on a pathological pattern", () => {
  const input = "a".repeat(5000) + "!";
  const start = performance.now();
  const r = run("x.matches('^(a+)+$') || x.matches('(a|a)*b') || x.matches('(a*)*c')", {
    x: input,
  });
  const ms = performance.now() - start;
  assert.ok(r.ok && r.value === false);
  // A backtracking engine needs astronomically long; linear time is well under this bound.
  assert.ok(ms < 20_000, `took ${ms} ms`);
});

Deno.test("compile() rejects an invalid constant regex with its position", () => {
  const c = testEnv().compile("'a'.matches('a(b')");
  assert.ok(!c.ok);
  assert.equal(c.errors[0].position?.column, 13);
  assert.match(c.errors[0].message, /missing closing \)/);
});

Deno.test("compileRe2() rejects backreferences and lookaround", async (t) => {
  for (const p of ["(a)\\1", "(?=x)", "(?!x)", "(?<=x)", "a**", "x{1001}", "[z-a]"]) {
    await t.step(p, () => assert.throws(() => compileRe2(p), Re2SyntaxError));
  }
});
