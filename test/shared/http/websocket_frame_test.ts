import assert from "node:assert/strict";
import {
  encodeFrame,
  FrameError,
  FrameParser,
  OPCODE,
  websocketAccept,
} from "../../../shared/http/websocket_frame.ts";

const MASK = new Uint8Array([1, 2, 3, 4]);

Deno.test("websocketAccept() computes RFC 6455's example answer", () => {
  assert.equal(websocketAccept("dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
});

Deno.test("FrameParser parses masked frames of every length encoding, split anywhere", () => {
  for (const size of [0, 1, 125, 126, 65535, 65536, 70000]) {
    const payload = new Uint8Array(size).map((_, i) => i % 251);
    const bytes = encodeFrame(OPCODE.binary, payload, MASK);
    const parser = new FrameParser({ maxPayload: 1 << 20 });
    const frames = [
      ...parser.push(bytes.subarray(0, 3)),
      ...parser.push(bytes.subarray(3, 11)),
      ...parser.push(bytes.subarray(11)),
    ];
    assert.equal(frames.length, 1, `size ${size}`);
    assert.equal(frames[0].opcode, OPCODE.binary);
    assert.ok(frames[0].fin);
    assert.deepEqual(new Uint8Array(frames[0].payload), payload);
  }
});

Deno.test("encodeFrame() writes server frames unmasked with the shortest length", () => {
  assert.deepEqual([...encodeFrame(OPCODE.text, new TextEncoder().encode("hi"))], [
    0x81,
    2,
    0x68,
    0x69,
  ]);
  const mid = encodeFrame(OPCODE.binary, new Uint8Array(300));
  assert.deepEqual([...mid.subarray(0, 4)], [0x82, 126, 1, 44]);
  const big = encodeFrame(OPCODE.binary, new Uint8Array(70000));
  assert.equal(big[1], 127);
  assert.equal(big.length, 10 + 70000);
});

Deno.test("FrameParser refuses unmasked, oversized, reserved-bit and fragmented control frames", () => {
  const cases: [Uint8Array, number][] = [
    [encodeFrame(OPCODE.binary, new Uint8Array(4)), 1002],
    [encodeFrame(OPCODE.binary, new Uint8Array(200), MASK), 1009],
    [Uint8Array.from([0xc2, 0x80, 1, 2, 3, 4]), 1002],
    [Uint8Array.from([0x09, 0x80, 1, 2, 3, 4]), 1002],
  ];
  for (const [bytes, code] of cases) {
    const parser = new FrameParser({ maxPayload: 100 });
    assert.throws(() => parser.push(bytes), (e) => e instanceof FrameError && e.code === code);
  }
});
