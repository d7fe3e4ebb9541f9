import assert from "node:assert/strict";
import { YamlDecoder } from "../../../apiserver/http/yaml_decoder.ts";
import { parseYamlBody } from "../../../apiserver/http/yaml_body.ts";
import { assertRejectsStatus } from "../../support/assert_throws_status.ts";

/** A ConfigMap of about `kib` KiB with a duplicated key at the end. */
function bigConfigMap(kib: number): string {
  const lines = ["apiVersion: v1", "kind: ConfigMap", "metadata:", "  name: big", "data:"];
  let size = 0;
  for (let i = 0; size < kib * 1024; i++) {
    lines.push(`  k${i}: "v ${i}"`);
    size += lines[lines.length - 1].length + 1;
  }
  lines.push("  k0: again");
  return lines.join("\n") + "\n";
}

Deno.test("YamlDecoder.parse() parses large bodies on its worker as the request thread would", async (t) => {
  const decoder = new YamlDecoder({ inlineLimitBytes: 1024 });
  try {
    await t.step("the same value and duplicates", async () => {
      const text = bigConfigMap(256);
      assert.deepEqual(await decoder.parse(text, true), parseYamlBody(text, true));
    });
    await t.step("the same 400 for broken YAML", async () => {
      const err = await assertRejectsStatus(decoder.parse(bigConfigMap(8) + "x: [1\n", false), 400);
      assert.match(err.message, /^error converting YAML to JSON: /);
    });
    await t.step("the same 400 for YAML nested too deep", async () => {
      const err = await assertRejectsStatus(
        decoder.parse("x: " + "[".repeat(100_000) + "]".repeat(100_000), false),
        400,
      );
      assert.equal(err.message, "the request body exceeds the maximum nesting depth of 1000");
    });
    await t.step("parses waiting together are answered each", async () => {
      const texts = [bigConfigMap(4), bigConfigMap(16), bigConfigMap(64)];
      const got = await Promise.all(texts.map((s) => decoder.parse(s, false)));
      assert.deepEqual(got, texts.map((s) => parseYamlBody(s, false)));
    });
    await t.step("small bodies are parsed inline", async () => {
      assert.deepEqual(await decoder.parse("a: 1\n", false), { value: { a: 1 }, duplicates: [] });
    });
  } finally {
    decoder.close();
  }
});

Deno.test("YamlDecoder.close() fails parses still waiting with 503", async () => {
  const decoder = new YamlDecoder({ inlineLimitBytes: 16 });
  const pending = decoder.parse(bigConfigMap(512), false);
  decoder.close();
  await assertRejectsStatus(pending, 503);
});
