import { table } from "./helpers.ts";

Deno.test("registerStringsLibrary() provides the extended string functions", async (t) => {
  await table(t, [
    { expr: "'Hello'.charAt(1)", want: "e" },
    { expr: "'Hello'.charAt(5)", want: "" },
    { expr: "'Hello'.charAt(6)", error: "index out of range" },
    { expr: "'a-b-c'.replace('-', '_')", want: "a_b_c" },
    { expr: "'a-b-c'.replace('-', '_', 1)", want: "a_b-c" },
    { expr: "'abc'.reverse()", want: "cba" },
    { expr: "strings.quote('a\"b\\n')", want: '"a\\"b\\n"' },
    { expr: "'%s is %d years'.format([dyn('x'), dyn(5)])", want: "x is 5 years" },
    { expr: "'%.2f'.format([1.005])", want: "1.00" },
    { expr: "'%x %X %o %b'.format([255, 255, 8, 5])", want: "ff FF 10 101" },
    { expr: "'%e'.format([1234.5])", want: "1.234500e+03" },
    { expr: "'%s'.format([[dyn(1), dyn('a')]])", want: "[1, a]" },
    { expr: "'100%%'.format([])", want: "100%" },
    { expr: "'%d'.format(['x'])", error: "decimal clause" },
    { expr: "'%s %s'.format(['x'])", error: "out of range" },
    { expr: "'a,b'.split(',').join('|')", want: "a|b" },
    { expr: "' x '.trim()", want: "x" },
    { expr: "'AbC'.lowerAscii() + 'AbC'.upperAscii()", want: "abcABC" },
    { expr: "'abca'.indexOf('c') + 'abca'.lastIndexOf('a')", want: 5n },
    { expr: "'abc'.substring(1, 2)", want: "b" },
    { expr: "'abc'.substring(2, 1)", error: "out of range" },
  ]);
});
