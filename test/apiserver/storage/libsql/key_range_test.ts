import assert from "node:assert/strict";
import { prefixEnd } from "../../../../apiserver/storage/libsql/key_range.ts";

Deno.test("prefixEnd() returns the exclusive upper bound of a prefix scan", async (t) => {
  const cases: Array<[string, string | undefined]> = [
    ["/registry/pods/", "/registry/pods0"],
    ["a", "b"],
    ["", undefined],
    ["\u{10FFFF}", undefined],
    ["a\u{10FFFF}", "b"],
    ["x\uD7FF", "x\uE000"],
    ["é", "ê"],
    ["😀", "😁"],
  ];
  for (const [prefix, want] of cases) {
    await t.step(JSON.stringify(prefix), () => assert.equal(prefixEnd(prefix), want));
  }
});

Deno.test("prefixEnd() bounds every key with the prefix in UTF-8 byte order", () => {
  const enc = new TextEncoder();
  const cmp = (a: string, b: string) => {
    const x = enc.encode(a);
    const y = enc.encode(b);
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
    return x.length - y.length;
  };
  for (const prefix of ["/a/", "é", "a\u{FFFF}", "\u{1F600}"]) {
    const end = prefixEnd(prefix);
    assert.ok(end !== undefined);
    for (const tail of ["", "\u{10FFFF}", "\u{10FFFF}\u{10FFFF}", "zzz", "\uFFFF"]) {
      assert.ok(cmp(prefix + tail, end) < 0, `${JSON.stringify(prefix + tail)} < end`);
    }
  }
});
