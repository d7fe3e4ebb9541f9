import assert from "node:assert/strict";
import { derInteger, derNamedBits, derOid, derTime } from "../../../shared/pki/der.ts";
import { decodeOid, decodeTime, readDer, readDerAt } from "../../../shared/pki/der_reader.ts";

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

Deno.test("derInteger() encodes two's complement and unsigned magnitudes", async (t) => {
  const cases: [bigint | number | Uint8Array, string][] = [
    [0, "020100"],
    [127, "02017f"],
    [128, "02020080"],
    [-1, "0201ff"],
    [-129, "0202ff7f"],
    [Uint8Array.of(0x80, 1), "0203008001"],
    [Uint8Array.of(0, 0, 5), "020105"],
  ];
  for (const [input, want] of cases) {
    await t.step(String(input), () => assert.equal(hex(derInteger(input)), want));
  }
});

Deno.test("derOid() round-trips through decodeOid()", async (t) => {
  for (const oid of ["2.5.4.3", "1.2.840.10045.4.3.2", "1.3.6.1.5.5.7.3.2", "2.999.3"]) {
    await t.step(oid, () => assert.equal(decodeOid(readDer(derOid(oid)).content), oid));
  }
});

Deno.test("derNamedBits() drops trailing zero bits", () => {
  assert.equal(hex(derNamedBits([0])), "03020780");
  assert.equal(hex(derNamedBits([0, 5, 6])), "03020186");
});

Deno.test("derTime() uses UTCTime before 2050 and GeneralizedTime after", () => {
  const a = new Date(Date.UTC(2030, 0, 2, 3, 4, 5));
  const b = new Date(Date.UTC(2051, 0, 2, 3, 4, 5));
  assert.equal(readDer(derTime(a)).tag, 0x17);
  assert.equal(readDer(derTime(b)).tag, 0x18);
  assert.equal(decodeTime(readDer(derTime(a))).getTime(), a.getTime());
  assert.equal(decodeTime(readDer(derTime(b))).getTime(), b.getTime());
});

Deno.test("readDerAt() rejects malformed input", async (t) => {
  const cases: [string, number[]][] = [
    ["truncated", [0x30, 0x05, 0x01]],
    ["indefinite length", [0x30, 0x80, 0, 0]],
    ["non-minimal length", [0x04, 0x81, 0x01, 0x00]],
    ["huge length", [0x04, 0x85, 1, 1, 1, 1, 1]],
    ["empty", []],
  ];
  for (const [name, bytes] of cases) {
    await t.step(
      name,
      () => assert.throws(() => readDerAt(Uint8Array.from(bytes), 0), /malformed DER/),
    );
  }
});
