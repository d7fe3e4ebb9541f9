import assert from "node:assert/strict";
import { type HttpsHandler, serveHttps } from "../../../shared/http/https_server.ts";
import {
  requestedUpgrade,
  upgradeOf,
  UpgradeResponse,
} from "../../../shared/http/upgrade_response.ts";
import { dialUpgrade, proxyUpgrade } from "../../../shared/http/upgrade_dial.ts";
import { servingPki, withHttpsServer } from "../../support/test_pki.ts";

const { ca, serving } = await servingPki();

/** Upgrades to an echo protocol that upper-cases what it receives. */
const upgrading: HttpsHandler = (req) => {
  if (requestedUpgrade(req.headers) !== "echo") {
    return new Response("not an upgrade", { status: 426 });
  }
  return new UpgradeResponse({ upgrade: "echo", "x-chosen": "yes" }, ({ socket, head }) => {
    const shout = (b: Uint8Array) => socket.write(new TextDecoder().decode(b).toUpperCase());
    if (head.length) shout(head);
    socket.on("data", shout);
  });
};

async function rawTls(port: number) {
  const conn = await Deno.connectTls({ hostname: "127.0.0.1", port, caCerts: [ca.certPem] });
  let text = "";
  let closed = false;
  const reading = (async () => {
    const buf = new Uint8Array(65536);
    try {
      for (;;) {
        const n = await conn.read(buf);
        if (n === null) break;
        text += new TextDecoder().decode(buf.subarray(0, n));
      }
    } catch { /* reset */ }
    closed = true;
  })();
  return {
    write: (s: string) => conn.write(new TextEncoder().encode(s)),
    async until(pred: (t: string, closed: boolean) => boolean): Promise<string> {
      const deadline = Date.now() + 20_000;
      while (!pred(text, closed)) {
        if (Date.now() > deadline) throw new Error(`gave up; got ${JSON.stringify(text)}`);
        await new Promise((r) => setTimeout(r, 5));
      }
      return text;
    },
    async close() {
      try {
        conn.close();
      } catch { /* closed */ }
      await reading;
    },
  };
}

Deno.test("requestedUpgrade() needs Connection: upgrade beside Upgrade", () => {
  assert.equal(
    requestedUpgrade(new Headers({ connection: "keep-alive, Upgrade", upgrade: "WebSocket" })),
    "websocket",
  );
  assert.equal(requestedUpgrade(new Headers({ upgrade: "websocket" })), undefined);
  assert.equal(requestedUpgrade(new Headers({ connection: "upgrade" })), undefined);
});

Deno.test("UpgradeResponse switches an HTTP/1.1 connection: 101, then the socket with the bytes sent after the head", async () => {
  await withHttpsServer(serving, upgrading, async (server) => {
    const c = await rawTls(server.port);
    try {
      await c.write(
        "GET /x HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\nearly",
      );
      const head = await c.until((t) => t.includes("EARLY"));
      assert.match(head, /^HTTP\/1\.1 101 Switching Protocols\r\n/);
      assert.match(head, /\r\nupgrade: echo\r\n/);
      assert.match(head, /\r\nx-chosen: yes\r\n/);
      assert.match(head, /\r\nconnection: Upgrade\r\n/);
      await c.write("later");
      await c.until((t) => t.endsWith("LATER"));
    } finally {
      await c.close();
    }
  });
});

Deno.test("an upgrade asked of an HTTP/2 stream is answered 400", async () => {
  await withHttpsServer(
    serving,
    () => new UpgradeResponse({ upgrade: "echo" }, () => {}),
    async (server) => {
      const client = Deno.createHttpClient({ caCerts: [ca.certPem], http2: true, http1: false });
      try {
        const res = await fetch(`https://localhost:${server.port}/`, { client });
        assert.equal(res.status, 400);
        assert.match((await res.json()).message, /upgrades need an HTTP\/1\.1 request/);
      } finally {
        client.close();
      }
    },
  );
});

Deno.test("closing the server ends upgraded connections", async () => {
  const server = await serveHttps(upgrading, {
    hostname: "127.0.0.1",
    port: 0,
    certPem: serving.certPem,
    keyPem: serving.keyPem,
    requestClientCert: false,
    onError: () => {},
    onWarning: () => {},
  });
  const c = await rawTls(server.port);
  try {
    await c.write("GET / HTTP/1.1\r\nHost: x\r\nConnection: upgrade\r\nUpgrade: echo\r\n\r\n");
    await c.until((t) => t.includes("\r\n\r\n"));
    await server.close();
    await c.until((_t, closed) => closed);
  } finally {
    await c.close();
    await server.close();
  }
});

Deno.test("dialUpgrade() and proxyUpgrade() pass an upgrade through a proxy; a refusal comes back as it is", async () => {
  await withHttpsServer(serving, upgrading, async (backend) => {
    const proxy: HttpsHandler = async (req) => {
      const r = await dialUpgrade({
        host: "127.0.0.1",
        port: backend.port,
        method: req.method,
        path: new URL(req.url).pathname,
        headers: [...req.headers].filter(([k]) => k !== "host"),
        tls: { ca: ca.certPem, servername: "localhost" },
      });
      return r.kind === "upgraded" ? proxyUpgrade(r) : r.response;
    };
    await withHttpsServer(serving, proxy, async (front) => {
      const c = await rawTls(front.port);
      try {
        await c.write(
          "GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\nhello",
        );
        const text = await c.until((t) => t.includes("HELLO"));
        assert.match(text, /^HTTP\/1\.1 101 /);
        assert.match(text, /x-chosen: yes/i);
      } finally {
        await c.close();
      }
      const refused = await rawTls(front.port);
      try {
        await refused.write("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        const text = await refused.until((t, closed) => closed || t.includes("not an upgrade"));
        assert.match(text, /^HTTP\/1\.1 426 /);
      } finally {
        await refused.close();
      }
    });
  });
});

Deno.test("UpgradeResponse reports status 101 to whoever inspects it", () => {
  const res = new UpgradeResponse({ upgrade: "echo" }, () => {});
  assert.equal(res.status, 101);
  assert.equal(upgradeOf(res), res.onUpgrade);
  assert.equal(upgradeOf(new Response("x")), undefined);
});
