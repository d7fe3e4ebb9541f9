import assert from "node:assert";
import { table } from "./helpers.ts";
import { Quantity } from "../../../../apiserver/cel/mod.ts";

Deno.test("registerQuantityLibrary() provides quantity parsing and arithmetic", async (t) => {
  await table(t, [
    { expr: "isQuantity('1Gi')", want: true },
    { expr: "isQuantity('1.5e3')", want: true },
    { expr: "isQuantity('500m')", want: true },
    { expr: "isQuantity('1Gix')", want: false },
    { expr: "isQuantity('')", want: false },
    { expr: "quantity('1Gi') == quantity('1024Mi')", want: true },
    { expr: "quantity('1Gi') != quantity('1G')", want: true },
    { expr: "quantity('1Gi') in [quantity('1024Mi')]", want: true },
    { expr: "quantity('1500m').isInteger()", want: false },
    { expr: "quantity('2k').isInteger()", want: true },
    { expr: "quantity('2k').asInteger()", want: 2000n },
    { expr: "quantity('1.5').asApproximateFloat()", want: 1.5 },
    { expr: "quantity('-1').sign()", want: -1n },
    { expr: "quantity('0').sign()", want: 0n },
    { expr: "quantity('2').add(3).asInteger()", want: 5n },
    { expr: "quantity('1Gi').add(quantity('1Gi')) == quantity('2Gi')", want: true },
    { expr: "quantity('1').sub(quantity('500m')) == quantity('0.5')", want: true },
    { expr: "quantity('5').sub(6).sign()", want: -1n },
    { expr: "quantity('1Mi').isLessThan(quantity('1Gi'))", want: true },
    { expr: "quantity('1Mi').isGreaterThan(quantity('1Gi'))", want: false },
    { expr: "quantity('1500m').compareTo(quantity('1.5'))", want: 0n },
    { expr: "quantity('2').compareTo(quantity('1'))", want: 1n },
    { expr: "quantity('1').compareTo(quantity('2'))", want: -1n },
    { expr: "quantity('9223372036854775807').asInteger()", want: 9223372036854775807n },
    { expr: "quantity('9223372036854775808').asInteger()", error: "overflow" },
    { expr: "quantity('10Ei').asInteger()", error: "overflow" },
    { expr: "quantity('1500m').asInteger()", error: "cannot convert value to integer" },
    { expr: "quantity('1Gix')", error: "quantities must match" },
  ]);
});

Deno.test("Quantity.toString() produces Kubernetes' canonical forms", async (t) => {
  const cases: [string, string][] = [
    ["1Gi", "1Gi"],
    ["1024Mi", "1Gi"],
    ["1.5Gi", "1536Mi"],
    ["1000", "1k"],
    ["1001", "1001"],
    ["1.5", "1500m"],
    ["0.1", "100m"],
    ["1e3", "1e3"],
    ["100m", "100m"],
    ["0", "0"],
    ["-2k", "-2k"],
    ["1n", "1n"],
    ["0.0000000001", "1n"],
  ];
  for (const [input, want] of cases) {
    await t.step(`${input} -> ${want}`, () => assert.equal(Quantity.parse(input).toString(), want));
  }
});
