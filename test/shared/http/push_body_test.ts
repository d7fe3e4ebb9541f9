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

for (const http2 of [false, true]) {
  const proto = http2 ? "HTTP/2" : "HTTP/1.1";
  Deno.test(`serveHttps() writes a push body over ${proto} as the source writes it`, async () => {
    const src = source();
    await withHttpsServer(serving, () =>
      pushResponse(
        new ReadableStream({ start: () => {} }),
        src,
        { headers: { "content-type": "application/json" } },
      ), async (server) => {
      const client = Deno.createHttpClient({ caCerts: [ca.certPem], http2, http1: !http2 });
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

  Deno.test(`serveHttps() cancels a push source when the ${proto} client leaves`, async () => {
    const src = source();
    await withHttpsServer(
      serving,
      () => pushResponse(new ReadableStream({ start: () => {} }), src, {}),
      async (server) => {
        const client = Deno.createHttpClient({ caCerts: [ca.certPem], http2, http1: !http2 });
        try {
          const res = await fetch(`https://localhost:${server.port}/`, { client });
          await src.attached;
          src.send("x\n");
          const reader = res.body!.getReader();
          await reader.read();
          await reader.cancel();
          if (!http2) client.close();
          await src.cancelled;
        } finally {
          if (http2) client.close();
        }
      },
    );
  });
}
