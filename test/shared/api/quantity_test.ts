// Cases transcribed from apimachinery's resource.Quantity tests (TestQuantityParse,
// TestQuantityString, TestQuantityParseEmit, TestQuantityNeg): facts of Kubernetes' behaviour.
import assert from "node:assert/strict";
import {
  canonicalQuantity,
  Quantity,
  type QuantityFormat,
  QuantityParseError,
  tryParseQuantity,
} from "../../../shared/api/quantity.ts";

const D: QuantityFormat = "DecimalSI", B: QuantityFormat = "BinarySI";
const X: QuantityFormat = "DecimalExponent";
const KI = 1024, MI = KI * KI, GI = MI * KI;
const MAX = 2n ** 63n - 1n;

/** A quantity of `i * 10^exponent`, as the upstream tests build them. */
function dec(i: number | bigint, exponent: number, format: QuantityFormat): Quantity {
  return new Quantity(BigInt(i), -exponent, format);
}

Deno.test("Quantity.parse() reads values, rounding and formats as Kubernetes does", async (t) => {
  const cases: [string, Quantity][] = [
    ["0", dec(0, 0, D)],
    ["0n", dec(0, 0, D)],
    ["0u", dec(0, 0, D)],
    ["0m", dec(0, 0, D)],
    ["0Ki", dec(0, 0, B)],
    ["0k", dec(0, 0, D)],
    ["0Mi", dec(0, 0, B)],
    ["0M", dec(0, 0, D)],
    ["0Gi", dec(0, 0, B)],
    ["0G", dec(0, 0, D)],
    ["0Ti", dec(0, 0, B)],
    ["0T", dec(0, 0, D)],
    ["1", dec(1, 0, D)],
    ["1Ki", dec(KI, 0, B)],
    ["8Ki", dec(8 * KI, 0, B)],
    ["7Mi", dec(7 * MI, 0, B)],
    ["6Gi", dec(6 * GI, 0, B)],
    ["5Ti", dec(5n * 2n ** 40n, 0, B)],
    ["4Pi", dec(4n * 2n ** 50n, 0, B)],
    ["3Ei", dec(3n * 2n ** 60n, 0, B)],
    ["10Ti", dec(10n * 2n ** 40n, 0, B)],
    ["100Ti", dec(100n * 2n ** 40n, 0, B)],
    ["5n", dec(5, -9, D)],
    ["4u", dec(4, -6, D)],
    ["3m", dec(3, -3, D)],
    ["9", dec(9, 0, D)],
    ["8k", dec(8, 3, D)],
    ["50k", dec(5, 4, D)],
    ["7M", dec(7, 6, D)],
    ["6G", dec(6, 9, D)],
    ["5T", dec(5, 12, D)],
    ["40T", dec(4, 13, D)],
    ["300T", dec(3, 14, D)],
    ["2P", dec(2, 15, D)],
    ["1E", dec(1, 18, D)],
    ["1E-3", dec(1, -3, X)],
    ["1e3", dec(1, 3, X)],
    ["1E6", dec(1, 6, X)],
    ["1e9", dec(1, 9, X)],
    ["1E12", dec(1, 12, X)],
    ["1e15", dec(1, 15, X)],
    ["1E18", dec(1, 18, X)],
    ["1e14", dec(1, 14, X)],
    ["1e13", dec(1, 13, X)],
    ["100.035k", dec(100035, 0, D)],
    ["0.001", dec(1, -3, D)],
    ["0.0005k", dec(5, -1, D)],
    ["0.005", dec(5, -3, D)],
    ["0.05", dec(5, -2, D)],
    ["0.5", dec(5, -1, D)],
    ["0.00050k", dec(5, -1, D)],
    ["0.00500", dec(5, -3, D)],
    ["0.05000", dec(5, -2, D)],
    ["0.50000", dec(5, -1, D)],
    ["0.5e0", dec(5, -1, X)],
    ["0.5e-1", dec(5, -2, X)],
    ["0.5e-2", dec(5, -3, X)],
    ["10.035M", dec(10035, 3, D)],
    ["1.2e3", dec(12, 2, X)],
    ["1.3E+6", dec(13, 5, X)],
    ["1.40e9", dec(14, 8, X)],
    ["1.53E12", dec(153, 10, X)],
    ["1.6e15", dec(16, 14, X)],
    ["1.7E18", dec(17, 17, X)],
    ["9.01", dec(901, -2, D)],
    ["8.1k", dec(81, 2, D)],
    ["7.123456M", dec(7123456, 0, D)],
    ["6.987654321G", dec(6987654321, 0, D)],
    ["5.444T", dec(5444, 9, D)],
    ["40.1T", dec(401, 11, D)],
    ["300.2T", dec(3002, 11, D)],
    ["2.5P", dec(25, 14, D)],
    ["1.01E", dec(101, 16, D)],
    // Saturation and rounding.
    ["3.001n", dec(4, -9, D)],
    ["1.1E-9", dec(2, -9, X)],
    ["0.0000000001", dec(1, -9, D)],
    ["0.0000000005", dec(1, -9, D)],
    ["0.00000000050", dec(1, -9, D)],
    ["0.5e-9", dec(1, -9, X)],
    ["0.9n", dec(1, -9, D)],
    ["0.00000012345", dec(124, -9, D)],
    ["0.00000012354", dec(124, -9, D)],
    ["9Ei", dec(MAX, 0, B)],
    ["9223372036854775807Ki", dec(MAX, 0, B)],
    ["12E", dec(12, 18, D)],
    // Fractional binary values.
    ["100.035Ki", dec(10243584, -2, B)],
    ["0.5Mi", dec(0.5 * MI, 0, B)],
    ["0.05Gi", dec(536870912, -1, B)],
    ["0.025Ti", dec(274877906944, -1, B)],
    // Odd but valid.
    ["0.000000000001Ki", dec(2, -9, D)],
    [".001", dec(1, -3, D)],
    [".0001k", dec(100, -3, D)],
    ["1.", dec(1, 0, D)],
    ["1.G", dec(1, 9, D)],
  ];
  for (const [input, want] of cases) {
    await t.step(input, () => {
      for (const [prefix, sign] of [["", 1n], ["+", 1n], ["-", -1n]] as const) {
        const got = Quantity.parse(prefix + input);
        const expected = new Quantity(want.n * sign, want.scale, want.format);
        assert.equal(got.compareTo(expected), 0, `${prefix}${input}: ${got} != ${expected}`);
        assert.equal(got.format, want.format, `${prefix}${input}`);
      }
    });
  }
});

Deno.test("Quantity.parse() rejects what Kubernetes rejects", async (t) => {
  const invalid = [
    "",
    "1.1.M",
    "1+1.0M",
    "0.1mi",
    "0.1am",
    "aoeu",
    ".5i",
    "1i",
    "-3.01i",
    "-3.01e-",
    " 1",
    "1 ",
  ];
  for (const input of invalid) {
    await t.step(JSON.stringify(input), () => {
      assert.throws(() => Quantity.parse(input), QuantityParseError);
      assert.equal(tryParseQuantity(input), undefined);
    });
  }
  await t.step("messages", () => {
    assert.throws(() => Quantity.parse("aoeu"), /quantities must match the regular expression/);
    assert.throws(() => Quantity.parse("0.1mi"), /unable to parse quantity's suffix/);
  });
});

Deno.test("Quantity.toString() writes Kubernetes' canonical form", async (t) => {
  // [value, canonical, another spelling that parses to the same canonical form]
  const cases: [Quantity, string, string][] = [
    [dec(GI, 0, B), "1Gi", "1024Mi"],
    [dec(300 * MI, 0, B), "300Mi", "307200Ki"],
    [dec(6 * KI, 0, B), "6Ki", ""],
    [dec(1001 * GI, 0, B), "1001Gi", "1025024Mi"],
    [dec(2n ** 40n, 0, B), "1Ti", "1024Gi"],
    [dec(5, 0, B), "5", "5000m"],
    [dec(500, -3, B), "500m", "0.5"],
    [dec(1, 9, D), "1G", "1000M"],
    [dec(1000, 6, D), "1G", "0.001T"],
    [dec(1000000, 3, D), "1G", ""],
    [dec(1000000000, 0, D), "1G", ""],
    [dec(1, -3, D), "1m", "1000u"],
    [dec(80, -3, D), "80m", ""],
    [dec(1080, -3, D), "1080m", "1.08"],
    [dec(108, -2, D), "1080m", "1080000000n"],
    [dec(10800, -4, D), "1080m", ""],
    [dec(300, 6, D), "300M", ""],
    [dec(1, 12, D), "1T", ""],
    [dec(1, 18, D), "1E", ""],
    [dec(1, 21, D), "1e21", "1000E"],
    [dec(5, 21, D), "5e21", "5000E"],
    [dec(1, 24, D), "1e24", "1000000E"],
    [dec(1234567, 6, D), "1234567M", ""],
    [dec(1234567, -3, B), "1234567m", ""],
    [dec(3, 3, D), "3k", ""],
    [dec(1025, 0, B), "1025", ""],
    [dec(0, 0, D), "0", ""],
    [dec(0, 0, B), "0", ""],
    [dec(1, 9, X), "1e9", ".001e12"],
    [dec(1, -3, X), "1e-3", "0.001e0"],
    [dec(1, -9, X), "1e-9", "1000e-12"],
    [dec(80, -3, X), "80e-3", ""],
    [dec(300, 6, X), "300e6", ""],
    [dec(1, 12, X), "1e12", ""],
    [dec(1, 3, X), "1e3", ""],
    [dec(3, 3, X), "3e3", ""],
    [dec(0, 0, X), "0", "00"],
    [dec(1, -9, D), "1n", ""],
    [dec(80, -9, D), "80n", ""],
    [dec(1080, -9, D), "1080n", ""],
    [dec(108, -8, D), "1080n", ""],
    [dec(10800, -10, D), "1080n", ""],
    [dec(1, -6, D), "1u", ""],
    [dec(80, -6, D), "80u", ""],
    [dec(1080, -6, D), "1080u", ""],
  ];
  for (const [q, want, alternate] of cases) {
    await t.step(want, () => {
      assert.equal(q.toString(), want);
      assert.equal(canonicalQuantity(want), want, "the canonical form is stable");
      if (alternate) assert.equal(canonicalQuantity(alternate), want, alternate);
      if (q.n !== 0n) {
        assert.equal(new Quantity(-q.n, q.scale, q.format).toString(), `-${want}`);
      }
    });
  }
});

Deno.test("canonicalQuantity() rewrites parsed text in canonical form", async (t) => {
  const cases: [string, string][] = [
    // TestQuantityParseEmit
    ["1Ki", "1Ki"],
    ["1Mi", "1Mi"],
    ["1Gi", "1Gi"],
    ["1024Mi", "1Gi"],
    ["1000M", "1G"],
    [".001Ki", "1024m"],
    [".000001Ki", "1024u"],
    [".000000001Ki", "1024n"],
    [".000000000001Ki", "2n"],
    // The examples of the task and of Quantity's documentation.
    ["1000m", "1"],
    ["1024Ki", "1Mi"],
    ["0.5", "500m"],
    ["1.5", "1500m"],
    ["1.5Gi", "1536Mi"],
    // TestQuantityNeg
    ["-9.01", "-9010m"],
  ];
  for (const [input, want] of cases) {
    await t.step(`${input} -> ${want}`, () => {
      assert.equal(canonicalQuantity(input), want);
      if (want !== "0" && !input.startsWith("-")) {
        assert.equal(canonicalQuantity(`-${input}`), `-${want}`);
      }
    });
  }
});

Deno.test("Quantity arithmetic and comparison are exact", async (t) => {
  const cmp: [string, string, number][] = [
    ["0", "0", 0],
    ["100m", "50m", 1],
    ["50m", "100m", -1],
    ["10000T", "100Gi", 1],
  ];
  for (const [a, b, want] of cmp) {
    await t.step(`${a} <=> ${b}`, () => {
      assert.equal(Quantity.parse(a).compareTo(Quantity.parse(b)), want);
    });
  }
  await t.step("adding or subtracting zero keeps the suffix", () => {
    for (const v of ["100m", "1Gi"]) {
      const q = Quantity.parse(v), zero = Quantity.parse("0");
      assert.equal(q.add(zero).toString(), v);
      assert.equal(zero.add(q).toString(), v);
      assert.equal(q.sub(zero).toString(), v);
      assert.equal(zero.sub(q).toString(), `-${v}`);
    }
  });
  await t.step("int64 conversion", () => {
    assert.equal(Quantity.parse("2k").asInt64(), 2000n);
    assert.equal(Quantity.parse("1500m").asInt64(), undefined);
    assert.equal(Quantity.parse("9223372036854775808").asInt64(), undefined);
    assert.equal(Quantity.parse("10Ei").asInt64(), MAX, "binary values are capped when parsed");
    assert.equal(Quantity.parse("10Ei", { capBinary: false }).asInt64(), undefined);
  });
});
