import assert from "node:assert/strict";
import { ProtoReader } from "../../../../shared/codec/protobuf/proto_reader.ts";
import { ProtoWriter } from "../../../../shared/codec/protobuf/proto_writer.ts";
import { ProtobufError } from "../../../../shared/codec/protobuf/protobuf_error.ts";

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

Deno.test("ProtoWriter.int32() and int64() write integers ProtoReader reads back, as Protobuf encodes them", async (t) => {
  const cases: [number, string, "int32" | "int64"][] = [
    [0, "00", "int32"],
    [1, "01", "int32"],
    [150, "9601", "int32"],
    [2147483647, "ffffffff07", "int32"],
    [-1, "ffffffffffffffffff01", "int32"],
    [-2147483648, "80808080f8ffffffff01", "int32"],
    [1700000000, "80e2cfaa06", "int64"],
    [2 ** 53 - 1, "ffffffffffffff0f", "int64"],
    [-62135596800, "8092b8c398feffffff01", "int64"],
  ];
  for (const [value, expected, type] of cases) {
    await t.step(`${value}`, () => {
      const w = new ProtoWriter();
      const bytes = (type === "int32" ? w.int32(value) : w.int64(value)).finish();
      assert.equal(hex(bytes), expected);
      const r = new ProtoReader(bytes);
      assert.equal(type === "int32" ? r.int32() : r.int64(), value);
      assert.ok(r.done);
    });
  }
});

Deno.test("ProtoWriter.ldelim() prefixes nested messages with their length", () => {
  const w = new ProtoWriter();
  w.tag(1, 2).fork();
  w.tag(1, 2).string("x".repeat(200));
  w.ldelim();
  const bytes = w.finish();
  assert.equal(hex(bytes.subarray(0, 5)), "0acb010ac8");
  const r = new ProtoReader(bytes);
  assert.deepEqual(r.tag(), [1, 2]);
  const inner = new ProtoReader(r.bytes());
  assert.deepEqual(inner.tag(), [1, 2]);
  assert.equal(inner.string(), "x".repeat(200));
});

Deno.test("ProtoWriter.string() writes U+FFFD for a lone surrogate, as TextEncoder does", () => {
  const bytes = new ProtoWriter().string("a\ud800b\udc00").finish();
  const text = new TextEncoder().encode("a\ud800b\udc00");
  assert.equal(hex(bytes), hex(new Uint8Array([text.length, ...text])));
  assert.equal(new ProtoReader(bytes).string(), "a\ufffdb\ufffd");
});

Deno.test("ProtoReader skips unknown fields of every wire type and rejects bad data", async (t) => {
  await t.step("skip", () => {
    // varint, fixed64, len, fixed32, group {varint}, then field 9 string
    const bytes = new Uint8Array([
      0x08,
      0x96,
      0x01,
      0x11,
      1,
      2,
      3,
      4,
      5,
      6,
      7,
      8,
      0x1a,
      0x02,
      0xaa,
      0xbb,
      0x25,
      1,
      2,
      3,
      4,
      0x2b,
      0x08,
      0x01,
      0x2c,
      0x4a,
      0x01,
      0x41,
    ]);
    const r = new ProtoReader(bytes);
    for (let i = 0; i < 5; i++) {
      const [, wt] = r.tag();
      r.skip(wt);
    }
    assert.deepEqual(r.tag(), [9, 2]);
    assert.equal(r.string(), "A");
    assert.ok(r.done);
  });
  const bad: [string, number[], (r: ProtoReader) => unknown][] = [
    ["truncated varint", [0x96], (r) => r.int32()],
    ["length past end", [0x05, 0x41], (r) => r.bytes()],
    ["invalid utf-8", [0x02, 0xc3, 0x28], (r) => r.string()],
    ["field number 0", [0x02], (r) => r.tag()],
    ["wire type 7", [0x0f], (r) => r.skip(r.tag()[1])],
  ];
  for (const [name, bytes, read] of bad) {
    await t.step(name, () => {
      assert.throws(
        () => read(new ProtoReader(new Uint8Array(bytes))),
        (e: unknown) => e instanceof ProtobufError && e.reason === "Malformed",
      );
    });
  }
});
