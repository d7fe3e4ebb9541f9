import assert from "node:assert/strict";
import {
  decodeObject,
  encodeWatchFrame,
  ProtobufError,
  WatchFrameDecoder,
  watchFrameDecoderStream,
} from "../../../../shared/codec/protobuf/mod.ts";
import { ProtoReader } from "../../../../shared/codec/protobuf/proto_reader.ts";

const pod = JSON.parse(
  Deno.readTextFileSync(new URL("../../../testdata/protobuf/pod.json", import.meta.url)),
) as Record<string, unknown>;
const status = {
  apiVersion: "v1",
  kind: "Status",
  metadata: {},
  status: "Failure",
  message: "too old resource version: 1 (48000)",
  reason: "Expired",
  code: 410,
};

Deno.test("encodeWatchFrame() writes a length prefix and a bare WatchEvent holding the enveloped object", () => {
  const frame = encodeWatchFrame("ADDED", pod);
  const len = new DataView(frame.buffer).getUint32(0, false);
  assert.equal(len, frame.length - 4);
  // The event itself has no k8s\0 magic: it starts with WatchEvent.type (1, LEN).
  assert.equal(frame[4], 0x0a);
  const r = new ProtoReader(frame, 4);
  assert.deepEqual(r.tag(), [1, 2]);
  assert.equal(r.string(), "ADDED");
  assert.deepEqual(r.tag(), [2, 2]);
  const ext = new ProtoReader(r.bytes());
  assert.deepEqual(ext.tag(), [1, 2]); // RawExtension.raw
  const raw = ext.bytes();
  assert.deepEqual(Array.from(raw.subarray(0, 4)), [0x6b, 0x38, 0x73, 0x00]);
  assert.deepStrictEqual(decodeObject(raw), pod);
  assert.ok(r.done && ext.done);
});

Deno.test("WatchFrameDecoder.push() splits a stream fed in arbitrary chunks", async (t) => {
  const frames = [
    encodeWatchFrame("ADDED", pod),
    encodeWatchFrame("MODIFIED", { ...pod, metadata: { name: "p2" } }),
    encodeWatchFrame("ERROR", status),
  ];
  const stream = new Uint8Array(frames.reduce((n, f) => n + f.length, 0));
  let off = 0;
  for (const f of frames) {
    stream.set(f, off);
    off += f.length;
  }
  const expected = [
    { type: "ADDED", object: pod },
    { type: "MODIFIED", object: { ...pod, metadata: { name: "p2" } } },
    { type: "ERROR", object: status },
  ];
  for (const size of [1, 3, 7, 4096, stream.length]) {
    await t.step(`chunks of ${size} bytes`, () => {
      const d = new WatchFrameDecoder();
      const events = [];
      for (let i = 0; i < stream.length; i += size) {
        events.push(...d.push(stream.subarray(i, i + size)));
      }
      assert.deepStrictEqual(events, expected);
      assert.equal(d.pending, 0);
      d.end();
    });
  }
});

Deno.test("WatchFrameDecoder rejects oversized frames and a stream cut inside a frame", async (t) => {
  await t.step("oversized", () => {
    const d = new WatchFrameDecoder(16);
    assert.throws(
      () => d.push(encodeWatchFrame("ADDED", pod)),
      (e: unknown) => e instanceof ProtobufError && e.reason === "Malformed",
    );
  });
  await t.step("cut", () => {
    const d = new WatchFrameDecoder();
    const frame = encodeWatchFrame("DELETED", status);
    assert.deepEqual(d.push(frame.subarray(0, frame.length - 1)), []);
    assert.throws(() => d.end(), ProtobufError);
  });
});

Deno.test("watchFrameDecoderStream() decodes a byte stream into events", async () => {
  const body = new Blob([
    encodeWatchFrame("ADDED", status),
    encodeWatchFrame("BOOKMARK", {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { resourceVersion: "9", annotations: { "k8s.io/initial-events-end": "true" } },
    }),
  ]).stream();
  const events = await Array.fromAsync(body.pipeThrough(watchFrameDecoderStream()));
  assert.deepStrictEqual(events.map((e) => e.type), ["ADDED", "BOOKMARK"]);
  assert.deepStrictEqual(events[1].object.metadata, {
    resourceVersion: "9",
    annotations: { "k8s.io/initial-events-end": "true" },
  });
});
