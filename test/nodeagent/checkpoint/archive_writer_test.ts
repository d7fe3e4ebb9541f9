import assert from "node:assert/strict";
import { writeArchiveAtomically } from "../../../nodeagent/checkpoint/archive_writer.ts";
import { readTar } from "./_read_tar.ts";

async function* chunks(...parts: string[]): AsyncIterable<Uint8Array> {
  for (const p of parts) yield new TextEncoder().encode(p);
}

Deno.test("writeArchiveAtomically() writes a 0600 tar with files, directories and streams", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/a.tar`;
    await writeArchiveAtomically(path, async (w) => {
      await w.addDirectory("checkpoint");
      await w.addFile("config.dump", '{"id":"x"}');
      await w.addStream("checkpoint/big.img", 6, chunks("abc", "def"));
    });
    assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
    const entries = await readTar(path);
    assert.deepEqual([...entries.keys()], ["checkpoint", "config.dump", "checkpoint/big.img"]);
    assert.equal(new TextDecoder().decode(entries.get("checkpoint/big.img")), "abcdef");
    assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name), ["a.tar"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("writeArchiveAtomically() leaves nothing behind on failure or abort", async (t) => {
  const dir = await Deno.makeTempDir();
  try {
    await t.step("fill throws", async () => {
      await assert.rejects(
        writeArchiveAtomically(`${dir}/b.tar`, async (w) => {
          await w.addFile("x", "1");
          throw new Error("boom");
        }),
        /boom/,
      );
    });
    await t.step("stream shorter than its size", async () => {
      await assert.rejects(
        writeArchiveAtomically(`${dir}/c.tar`, (w) => w.addStream("x", 10, chunks("abc"))),
        /3 of 10 bytes/,
      );
    });
    await t.step("aborted mid-stream", async () => {
      const ac = new AbortController();
      async function* slow(): AsyncIterable<Uint8Array> {
        yield new Uint8Array(4);
        ac.abort(new Error("timed out"));
        yield new Uint8Array(4);
      }
      await assert.rejects(
        writeArchiveAtomically(`${dir}/d.tar`, (w) => w.addStream("x", 8, slow()), ac.signal),
        /timed out/,
      );
    });
    assert.deepEqual([...Deno.readDirSync(dir)], []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
