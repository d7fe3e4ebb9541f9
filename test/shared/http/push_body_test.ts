import assert from "node:assert/strict";
import { pushResponse, type PushSink, pushSourceOf } from "../../../shared/http/push_body.ts";
import { servingPki, withHttpsServer } from "../../support/test_pki.ts";

const { ca, serving } = await servingPki();
const enc = new TextEncoder();

/** A push source driven by the test: it writes what `send` is given once attached. */
function source() {
  let sink: PushSink | undefined;
  let onCancel!: () => void;
  let onAttach!: () => void;
  const attached = new Promise<void>((r) => onAttach = r);
  const cancelled = new Promise<void>((r) => onCancel = r);
  return {
    attached,
    cancelled,
    attach(s: PushSink) {
      sink = s;
      onAttach();
    },
    drain() {},
    cancel() {
      onCancel();
    },
    send(text: string) {
      sink!.write(enc.encode(text));
    },
    end() {
      sink!.end();
    },
  };
}

Deno.test("pushSourceOf() finds the source until the body is read", async () => {
  const src = source();
  const res = pushResponse(new ReadableStream({ start: (c) => c.close() }), src, {});
  assert.equal(pushSourceOf(res), src);
  await res.text();
  assert.equal(pushSourceOf(res), undefined);
  assert.equal(pushSourceOf(new Response("x")), undefined);
});

Deno.test("serveHttps() writes a push body to an HTTP/2 stream as the source writes it", async () => {
  const src = source();
  await withHttpsServer(serving, () =>
    pushResponse(
      new ReadableStream({ start: () => {} }),
      src,
      { headers: { "content-type": "application/json" } },
    ), async (server) => {
    const client = Deno.createHttpClient({ caCerts: [ca.certPem], http2: true, http1: false });
    try {
      const res = await fetch(`https://localhost:${server.port}/`, { client });
      await src.attached;
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      src.send("one\n");
      assert.equal((await reader.read()).value, "one\n");
      src.send("two\n");
      src.send("three\n");
      let text = "";
      while (text !== "two\nthree\n") text += (await reader.read()).value;
      src.end();
      assert.ok((await reader.read()).done);
    } finally {
      client.close();
    }
  });
});

Deno.test("serveHttps() cancels a push source when the HTTP/2 client resets the stream", async () => {
  const src = source();
  await withHttpsServer(
    serving,
    () => pushResponse(new ReadableStream({ start: () => {} }), src, {}),
    async (server) => {
      const client = Deno.createHttpClient({ caCerts: [ca.certPem], http2: true, http1: false });
      try {
        const res = await fetch(`https://localhost:${server.port}/`, { client });
        await src.attached;
        src.send("x\n");
        const reader = res.body!.getReader();
        await reader.read();
        await reader.cancel();
        await src.cancelled;
      } finally {
        client.close();
      }
    },
  );
});

Deno.test("serveHttps() reads a push Response's stream over HTTP/1.1", async () => {
  const src = source();
  let attached = false;
  src.attached.then(() => attached = true);
  await withHttpsServer(serving, () =>
    pushResponse(
      new ReadableStream({
        start(c) {
          c.enqueue(enc.encode("from the stream\n"));
          c.close();
        },
      }),
      src,
      {},
    ), async (server) => {
    const client = Deno.createHttpClient({ caCerts: [ca.certPem], http2: false });
    try {
      const res = await fetch(`https://localhost:${server.port}/`, { client });
      assert.equal(await res.text(), "from the stream\n");
      assert.ok(!attached);
    } finally {
      client.close();
    }
  });
});
