import assert from "node:assert/strict";
import { servingPki, withHttpsServer } from "../../support/test_pki.ts";

const { ca, serving } = await servingPki();

/** Raw TCP connections that send nothing; `closed` counts those the server closed. */
async function idleConnections(port: number, n: number) {
  const conns: Deno.Conn[] = [];
  const state = { closed: 0 };
  const reads: Promise<void>[] = [];
  for (let i = 0; i < n; i++) {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    conns.push(conn);
    reads.push((async () => {
      try {
        while (await conn.read(new Uint8Array(1024)) !== null) { /* nothing comes */ }
      } catch { /* reset */ }
      state.closed++;
    })());
  }
  return {
    state,
    async until(pred: () => boolean, what: string): Promise<void> {
      const deadline = Date.now() + 20_000;
      while (!pred()) {
        if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async close() {
      for (const c of conns) {
        try {
          c.close();
        } catch { /* closed */ }
      }
      await Promise.all(reads);
    },
  };
}

Deno.test("serveHttps() closes a connection that does not complete its TLS handshake in time", async () => {
  await withHttpsServer(serving, () => new Response("ok"), async (server) => {
    const idle = await idleConnections(server.port, 1);
    try {
      await idle.until(() => idle.state.closed === 1, "the server to close the connection");
    } finally {
      await idle.close();
    }
  }, { handshakeTimeoutMs: 500 });
});

Deno.test("serveHttps() closes the oldest connections in their handshake beyond the limit", async () => {
  const warnings: string[] = [];
  await withHttpsServer(serving, () => new Response("ok"), async (server) => {
    const idle = await idleConnections(server.port, 10);
    const client = Deno.createHttpClient({ caCerts: [ca.certPem] });
    try {
      await idle.until(() => idle.state.closed >= 6, "six connections closed");
      // A client that completes its handshake is served meanwhile.
      const res = await fetch(`https://127.0.0.1:${server.port}/`, { client });
      assert.equal(await res.text(), "ok");
    } finally {
      client.close();
      await idle.close();
    }
  }, {
    maxHandshakingConnections: 4,
    onWarning: (message) => warnings.push(message),
  });
  assert.ok(warnings.some((w) => /did not complete a TLS handshake/.test(w)), warnings.join());
});
