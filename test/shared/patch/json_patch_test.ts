import assert from "node:assert/strict";
import tests from "json-patch-test-suite/tests.json" with { type: "json" };
import specTests from "json-patch-test-suite/spec_tests.json" with { type: "json" };
import { applyJsonPatch, JsonPatchError } from "../../../shared/patch/json_patch.ts";

interface Case {
  comment?: string;
  doc: unknown;
  patch: unknown;
  expected?: unknown;
  error?: string;
  disabled?: boolean;
}

for (const [file, cases] of [["tests.json", tests], ["spec_tests.json", specTests]] as const) {
  Deno.test(`applyJsonPatch() passes every enabled case of json-patch-test-suite ${file}`, async (t) => {
    for (const [i, c] of (cases as Case[]).entries()) {
      if (c.disabled) continue;
      await t.step(`${i}: ${c.comment ?? ""}`, () => {
        if (c.error !== undefined) {
          assert.throws(() => applyJsonPatch(c.doc, c.patch), JsonPatchError);
        } else if ("expected" in c) {
          assert.deepEqual(applyJsonPatch(c.doc, c.patch), c.expected);
        } else {
          applyJsonPatch(c.doc, c.patch);
        }
      });
    }
  });
}

Deno.test("applyJsonPatch() leaves its input unchanged", () => {
  const doc = { a: [1, 2] };
  applyJsonPatch(doc, [{ op: "add", path: "/a/-", value: 3 }]);
  assert.deepEqual(doc, { a: [1, 2] });
});

Deno.test("applyJsonPatch() tells malformed patches from ones that do not apply", () => {
  const kind = (patch: unknown) => {
    try {
      applyJsonPatch({ a: 1 }, patch);
    } catch (err) {
      return (err as JsonPatchError).kind;
    }
    return "applied";
  };
  assert.equal(kind({ op: "add" }), "invalid");
  assert.equal(kind([{ op: "frob", path: "/a" }]), "invalid");
  assert.equal(kind([{ op: "test", path: "/a", value: 2 }]), "failed");
  assert.equal(kind([{ op: "remove", path: "/b" }]), "failed");
});

Deno.test("applyJsonPatch() stops copies that add more than maxCopyBytes", async (t) => {
  // Each op copies the whole of /d into itself, doubling it.
  const doubling = Array.from({ length: 40 }, () => ({ op: "copy", from: "/d", path: "/d/x" }));
  await t.step("without a limit a short patch grows the document", () => {
    const out = applyJsonPatch({ d: { v: "x" } }, doubling.slice(0, 3)) as { d: unknown };
    assert.equal(JSON.stringify(out.d), '{"v":"x","x":{"v":"x","x":{"v":"x","x":{"v":"x"}}}}');
  });
  await t.step("with a limit the doubling stops with a failed patch", () => {
    assert.throws(
      () => applyJsonPatch({ d: { v: "x" } }, doubling, { maxCopyBytes: 1024 }),
      (err: unknown) => {
        assert.ok(err instanceof JsonPatchError);
        assert.equal(err.kind, "failed");
        assert.match(
          err.message,
          /accumulated size increase of copy is \d+, exceeding the limit 1024$/,
        );
        return true;
      },
    );
  });
  await t.step("copies within the limit apply", () => {
    const out = applyJsonPatch({ a: "12345" }, [{ op: "copy", from: "/a", path: "/b" }], {
      maxCopyBytes: 7,
    });
    assert.deepEqual(out, { a: "12345", b: "12345" });
  });
});
