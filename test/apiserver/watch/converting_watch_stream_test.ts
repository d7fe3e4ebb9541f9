import assert from "node:assert/strict";
import { convertingWatchStream } from "../../../apiserver/watch/converting_watch_stream.ts";
import { JSON_WATCH_ENCODER } from "../../../apiserver/watch/watch_event_encoder.ts";
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";

const enc = new TextEncoder();

function source(chunks: string[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(c) {
      for (const chunk of chunks) c.enqueue(enc.encode(chunk));
      c.close();
    },
  });
}

async function lines(stream: ReadableStream<Uint8Array>): Promise<Record<string, unknown>[]> {
  const text = await new Response(stream).text();
  return text.split("\n").filter((l) => l).map((l) => JSON.parse(l));
}

const ev = (type: string, name: string) =>
  JSON.stringify({ type, object: { apiVersion: "example.com/v2", metadata: { name } } }) + "\n";

Deno.test("convertingWatchStream() converts each chunk's objects in one batch, across split lines", async () => {
  const batches: string[][] = [];
  const convert = (objs: KubeObject[]) => {
    batches.push(objs.map((o) => o.metadata.name!));
    return Promise.resolve(objs.map((o) => ({ ...o, apiVersion: "example.com/v1" })));
  };
  const bookmark = JSON.stringify({
    type: "BOOKMARK",
    object: { kind: "Widget", apiVersion: "example.com/v1", metadata: { resourceVersion: "9" } },
  }) + "\n";
  const two = ev("ADDED", "a") + ev("MODIFIED", "b");
  const split = ev("DELETED", "c");
  const out = await lines(convertingWatchStream(
    source([two, split.slice(0, 10), split.slice(10) + bookmark]),
    { convert, encoder: JSON_WATCH_ENCODER },
  ));
  assert.deepEqual(batches, [["a", "b"], ["c"]]);
  assert.deepEqual(
    out.map((e) => [e.type, (e.object as KubeObject).apiVersion]),
    [
      ["ADDED", "example.com/v1"],
      ["MODIFIED", "example.com/v1"],
      ["DELETED", "example.com/v1"],
      ["BOOKMARK", "example.com/v1"],
    ],
  );
});

Deno.test("convertingWatchStream() ends with an ERROR event when a conversion fails", async () => {
  let cancelled = false;
  const src = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(enc.encode(ev("ADDED", "a")));
    },
    cancel() {
      cancelled = true;
    },
  });
  const out = await lines(convertingWatchStream(src, {
    convert: () => Promise.reject(new StatusError({ code: 500, message: "webhook down" })),
    encoder: JSON_WATCH_ENCODER,
  }));
  assert.deepEqual(out, [{
    type: "ERROR",
    object: {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "webhook down",
      code: 500,
    },
  }]);
  assert.ok(cancelled, "the source watcher is cancelled");
});
