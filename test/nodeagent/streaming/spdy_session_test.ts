import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import zlib from "node:zlib";
import { spdyDictionary } from "../../../nodeagent/streaming/spdy/spdy_dictionary.ts";
import {
  controlFrame,
  dataFrame,
  decodeHeaderBlock,
  encodeHeaderBlock,
  FLAG_FIN,
  SPDY_TYPE,
  SpdyFrameParser,
  wordAt,
  words,
} from "../../../nodeagent/streaming/spdy/spdy_frame.ts";
import { SpdySession, type SpdyStream } from "../../../nodeagent/streaming/spdy/spdy_session.ts";

function flushed(z: zlib.Deflate | zlib.Inflate, input: Uint8Array): Promise<Uint8Array> {
  return new Promise((resolve) => {
    const out: Buffer[] = [];
    const onData = (c: Buffer) => out.push(c);
    z.on("data", onData);
    z.write(Buffer.from(input));
    z.flush(zlib.constants.Z_SYNC_FLUSH, () => {
      z.off("data", onData);
      resolve(Buffer.concat(out));
    });
  });
}

Deno.test("spdyDictionary() is the 1423-byte SPDY/3 dictionary", () => {
  const d = spdyDictionary();
  assert.equal(d.length, 1423);
  assert.deepEqual([...d.subarray(0, 11)], [0, 0, 0, 7, 0x6f, 0x70, 0x74, 0x69, 0x6f, 0x6e, 0x73]);
  assert.equal(new TextDecoder().decode(d.subarray(d.length - 7)), ",enq=0.");
});

Deno.test("SpdyFrameParser splits control and data frames arriving in pieces", () => {
  const bytes = Buffer.concat([
    controlFrame(SPDY_TYPE.ping, 0, words(7)),
    dataFrame(3, FLAG_FIN, new TextEncoder().encode("hello")),
  ]);
  const parser = new SpdyFrameParser();
  const frames = [...parser.push(bytes.subarray(0, 5)), ...parser.push(bytes.subarray(5))];
  assert.equal(frames.length, 2);
  assert.ok(frames[0].control && frames[0].type === SPDY_TYPE.ping);
  assert.equal(wordAt(frames[0].data, 0), 7);
  assert.ok(!frames[1].control && frames[1].streamId === 3 && frames[1].flags === FLAG_FIN);
  assert.equal(new TextDecoder().decode(frames[1].data), "hello");
  assert.throws(() => new SpdyFrameParser().push(Uint8Array.from([0x80, 2, 0, 1, 0, 0, 0, 0])));
});

Deno.test("encodeHeaderBlock() and decodeHeaderBlock() round-trip, with NUL-joined values", () => {
  const block = encodeHeaderBlock([["StreamType", "error"], ["X", "a\0b"]]);
  assert.deepEqual(
    decodeHeaderBlock(block),
    new Map([["streamtype", ["error"]], ["x", ["a", "b"]]]),
  );
  assert.throws(() => decodeHeaderBlock(block.subarray(0, block.length - 1)));
});

Deno.test("SpdySession accepts streams with compressed headers, replies, relays data and answers pings", async () => {
  const dictionary = spdyDictionary();
  const clientDeflate = zlib.createDeflate({ dictionary });
  const clientInflate = zlib.createInflate({ dictionary });
  const sent: Uint8Array[] = [];
  let closed = false;
  const streams: SpdyStream[] = [];
  const session = new SpdySession({
    write(b) {
      sent.push(b);
      return Promise.resolve();
    },
    close() {
      closed = true;
    },
  }, (s) => streams.push(s));
  const received: string[] = [];
  for (const [id, type] of [[1, "error"], [3, "stdin"]] as const) {
    const block = await flushed(clientDeflate, encodeHeaderBlock([["streamtype", type]]));
    session.receive(controlFrame(
      SPDY_TYPE.synStream,
      0,
      Buffer.concat([words(id, 0), Uint8Array.from([0, 0]), block]),
    ));
  }
  session.receive(dataFrame(3, 0, new TextEncoder().encode("typed")));
  session.receive(dataFrame(3, FLAG_FIN, new Uint8Array(0)));
  session.receive(controlFrame(SPDY_TYPE.ping, 0, words(5)));
  const deadline = Date.now() + 10_000;
  while (streams.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  assert.deepEqual(streams.map((s) => [s.id, s.header("streamtype")]), [[1, "error"], [
    3,
    "stdin",
  ]]);
  let ended = false;
  streams[1].read((d) => received.push(new TextDecoder().decode(d)), () => ended = true);
  await streams[0].write(new TextEncoder().encode("{}"));
  await streams[0].end();
  await session.close();
  assert.deepEqual(received, ["typed"]);
  assert.ok(ended);
  assert.ok(closed);
  const frames = new SpdyFrameParser().push(Buffer.concat(sent));
  const replies = frames.filter((f) => f.control && f.type === SPDY_TYPE.synReply);
  assert.equal(replies.length, 2);
  for (const r of replies) {
    assert.deepEqual(
      decodeHeaderBlock(await flushed(clientInflate, r.data.subarray(4))),
      new Map(),
    );
  }
  assert.ok(frames.some((f) => f.control && f.type === SPDY_TYPE.ping && wordAt(f.data, 0) === 5));
  const data = frames.filter((f) => !f.control && f.streamId === 1);
  assert.equal(new TextDecoder().decode(data[0].data), "{}");
  assert.equal(data[1].flags, FLAG_FIN);
  assert.ok(frames.some((f) => f.control && f.type === SPDY_TYPE.goAway));
  clientDeflate.close();
  clientInflate.close();
});
