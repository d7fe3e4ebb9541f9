import assert from "node:assert/strict";
import {
  containerLogStream,
  parseLogOptions,
  parseRecords,
} from "../../../nodeagent/streaming/container_logs.ts";
import { criRecords } from "../../../nodeagent/runtime/process/cri_log_writer.ts";

const enc = new TextEncoder();

async function logOf(text: string[], query: string, now = Date.parse("2026-01-01T00:00:10Z")) {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/0.log`;
  const parts = text.map((t, i) =>
    criRecords(
      i % 2 ? "stderr" : "stdout",
      enc.encode(t),
      Date.parse("2026-01-01T00:00:00Z") + i * 1000,
    )
  );
  await Deno.writeFile(path, new Uint8Array(parts.flatMap((p) => [...p])));
  try {
    const stream = containerLogStream(
      { running: false, logPath: path, workDir: dir, env: {}, exited: Promise.resolve() },
      parseLogOptions(new URLSearchParams(query), now),
      new AbortController().signal,
      "c",
    );
    return await new Response(stream).text();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("criRecords() writes full and partial lines; parseRecords() reads them back", () => {
  const bytes = criRecords("stderr", enc.encode("a\nbc"), Date.parse("2026-01-01T00:00:00Z"));
  assert.equal(
    new TextDecoder().decode(bytes),
    "2026-01-01T00:00:00.000000000Z stderr F a\n2026-01-01T00:00:00.000000000Z stderr P bc\n",
  );
  const { records, used } = parseRecords(bytes);
  assert.equal(used, bytes.length);
  assert.deepEqual(records.map((r) => [r.stream, r.full, new TextDecoder().decode(r.content)]), [
    ["stderr", true, "a\n"],
    ["stderr", false, "bc"],
  ]);
});

Deno.test("containerLogStream() honours tailLines, timestamps, sinceSeconds, sinceTime and limitBytes", async () => {
  const lines = ["one\n", "two\n", "thr", "ee\n"];
  assert.equal(await logOf(lines, ""), "one\ntwo\nthree\n");
  assert.equal(await logOf(lines, "tailLines=1"), "three\n");
  assert.equal(await logOf(lines, "tailLines=0"), "");
  assert.equal(
    await logOf(lines, "tailLines=2&timestamps=true"),
    "2026-01-01T00:00:01.000000000Z two\n2026-01-01T00:00:02.000000000Z three\n",
  );
  assert.equal(await logOf(lines, "sinceSeconds=8"), "three\n");
  assert.equal(await logOf(lines, "sinceTime=2026-01-01T00:00:01Z"), "two\nthree\n");
  assert.equal(await logOf(lines, "limitBytes=5"), "one\nt");
});
