import assert from "node:assert/strict";
import { formatBytes, formatCpu, parseQuantity } from "../../../nodeagent/config/quantity.ts";

Deno.test("parseQuantity() reads Kubernetes quantities", async (t) => {
  const cases: [string, number][] = [["100m", 0.1], ["2", 2], ["1Gi", 2 ** 30], ["500M", 5e8], [
    "1e3",
    1000,
  ], ["1.5Ki", 1536]];
  for (const [text, v] of cases) await t.step(text, () => assert.equal(parseQuantity(text), v));
  await t.step("rejects garbage", () => assert.throws(() => parseQuantity("1 GB"), SyntaxError));
});

Deno.test("formatCpu() and formatBytes() render quantities like the kubelet", () => {
  assert.equal(formatCpu(2), "2");
  assert.equal(formatCpu(1.5), "1500m");
  assert.equal(formatBytes(2048), "2Ki");
  assert.equal(formatBytes(1000), "1000");
});
