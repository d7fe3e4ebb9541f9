import assert from "node:assert/strict";
import { formatBytes, formatCpu, parseQuantity } from "../../../nodeagent/config/quantity.ts";

Deno.test("parseQuantity() reads Kubernetes quantities", async (t) => {
  const cases: [string, number][] = [["100m", 0.1], ["2", 2], ["1Gi", 2 ** 30], ["500M", 5e8], [
    "1e3",
    1000,
  ], ["1.5Ki", 1536]];
  for (const [text, v] of cases) await t.step(text, () => assert.equal(parseQuantity(text), v));
  await t.step("rejects garbage", () => assert.throws(() => parseQuantity("1 GB"), SyntaxError));
  // The shared Kubernetes parser: finer than nano rounds away from zero, binary values are
  // capped at 2^63-1, surrounding spaces are ignored as Quantity.UnmarshalJSON ignores them.
  await t.step("0.1n rounds up to 1n", () => assert.equal(parseQuantity("0.1n"), 1e-9));
  await t.step("10Ei is capped", () => assert.equal(parseQuantity("10Ei"), 2 ** 63 - 1));
  await t.step("spaces around", () => assert.equal(parseQuantity(" 2Gi "), 2 ** 31));
  await t.step("Kubernetes' message", () => {
    assert.throws(() => parseQuantity("1 GB"), /quantities must match the regular expression/);
  });
});

Deno.test("formatCpu() and formatBytes() render quantities like the kubelet", () => {
  assert.equal(formatCpu(2), "2");
  assert.equal(formatCpu(1.5), "1500m");
  assert.equal(formatBytes(2048), "2Ki");
  assert.equal(formatBytes(1000), "1000");
});
