import assert from "node:assert";
import { run, table } from "./helpers.ts";
import { testEnv } from "./helpers.ts";
import { compileRe2, MAX_PATTERN_LENGTH, Re2SyntaxError } from "../../../../apiserver/cel/mod.ts";

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
    { expr: "'😀b'.find('.')", want: "😀" },
    { expr: "'baaac'.findAll('a*')", want: ["", "aaa", ""] },
    { expr: "'😀b'.findAll('a*')", want: ["", "", ""] },
    { expr: "'abc'.findAll('')", want: ["", "", "", ""] },
    { expr: "'aXbXc'.findAll('X*', 2)", want: ["", "X"] },
    { expr: "'abc'.findAll('.', 0)", want: [] },
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

Deno.test("matches() and findAll() stay linear on a 100,000-character input", () => {
  const input = "a".repeat(100_000) + "!";
  const start = performance.now();
  const r = run("x.matches('^(a|aa)+$') || x.findAll('(a*)*[^!a]').size() > 0", { x: input });
  const ms = performance.now() - start;
  assert.ok(r.ok && r.value === false);
  assert.ok(ms < 20_000, `took ${ms} ms`);
});

Deno.test("compile() rejects an invalid constant regex with its position", () => {
  const c = testEnv().compile("'a'.matches('a(b')");
  assert.ok(!c.ok);
  assert.equal(c.errors[0].position?.column, 13);
  assert.match(c.errors[0].message, /missing closing \)/);
});

Deno.test("compileRe2() rejects backreferences and lookaround with Go's messages", async (t) => {
  const cases: [string, string][] = [
    ["(a)\\1", "error parsing regexp: invalid escape sequence: `\\1`"],
    ["(?=x)", "error parsing regexp: invalid or unsupported Perl syntax: `(?=`"],
    ["(?!x)", "error parsing regexp: invalid or unsupported Perl syntax: `(?!`"],
    ["(?<=x)", "error parsing regexp: invalid named capture: `(?<=x)`"],
    ["a**", "error parsing regexp: invalid nested repetition operator: `**`"],
    ["x{1001}", "error parsing regexp: invalid repeat count: `{1001}`"],
    ["[z-a]", "error parsing regexp: invalid character class range: `z-a`"],
    ["a(b", "error parsing regexp: missing closing ): `a(b`"],
    ["(".repeat(1001) + ")".repeat(1001), "error parsing regexp: expression nests too deeply"],
  ];
  for (const [p, message] of cases) {
    await t.step(p.slice(0, 20), () => {
      assert.throws(
        () => compileRe2(p),
        (e) => e instanceof Re2SyntaxError && e.message.startsWith(message),
      );
    });
  }
});

Deno.test("compileRe2() rejects a pattern longer than MAX_PATTERN_LENGTH", () => {
  assert.ok(compileRe2("x".repeat(MAX_PATTERN_LENGTH)).test("x".repeat(MAX_PATTERN_LENGTH)));
  assert.throws(
    () => compileRe2("x".repeat(MAX_PATTERN_LENGTH + 1)),
    /^Re2SyntaxError: error parsing regexp: expression too large: `x+\.\.\.`$/,
  );
});

Deno.test("compileRe2() returns the cached compiled pattern for a repeated pattern", () => {
  const a = compileRe2("^[a-z]([-a-z0-9]*[a-z0-9])?$");
  assert.strictEqual(compileRe2("^[a-z]([-a-z0-9]*[a-z0-9])?$"), a);
  assert.ok(a.test("my-name") && !a.test("-x"));
});
