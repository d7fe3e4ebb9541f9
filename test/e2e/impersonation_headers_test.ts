import assert from "node:assert/strict";
import { startTestServer } from "../support/test_server.ts";

/** Sends one raw HTTP/1.1 request over TLS and returns the status line and the body. */
async function rawRequest(
  url: string,
  caPem: string,
  headerLines: string[],
): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url);
  const conn = await Deno.connectTls({ hostname, port: Number(port), caCerts: [caPem] });
  try {
    const head = [
      "GET /api/v1/namespaces/default/configmaps HTTP/1.1",
      `Host: ${hostname}:${port}`,
      "Connection: close",
      ...headerLines,
      "",
      "",
    ].join("\r\n");
    await conn.write(new TextEncoder().encode(head));
    const text = await new Response(conn.readable).text();
    const status = Number(text.split(" ", 2)[1]);
    return { status, body: text.slice(text.indexOf("\r\n\r\n") + 4) };
  } finally {
    try {
      conn.close();
    } catch { /* closed by the response stream */ }
  }
}

Deno.test("impersonate() answers 400 to more than one Impersonate-User or Impersonate-Uid", async (t) => {
  const s = await startTestServer();
  const auth = `Authorization: Bearer ${s.server.adminToken}`;
  try {
    await t.step("two Impersonate-User headers", async () => {
      const r = await rawRequest(s.server.url, s.server.caPem, [
        auth,
        "Impersonate-User: x",
        "Impersonate-User: kubernetes-admin",
      ]);
      assert.equal(r.status, 400, r.body);
      assert.match(r.body, /only one Impersonate-User header is allowed/);
    });
    await t.step("two Impersonate-Uid headers", async () => {
      const r = await rawRequest(s.server.url, s.server.caPem, [
        auth,
        "Impersonate-User: x",
        "Impersonate-Uid: 1",
        "Impersonate-Uid: 2",
      ]);
      assert.equal(r.status, 400, r.body);
      assert.match(r.body, /only one Impersonate-Uid header is allowed/);
    });
    await t.step("one of each is still served", async () => {
      const r = await rawRequest(s.server.url, s.server.caPem, [
        auth,
        "Impersonate-User: system:admin",
        "Impersonate-Group: system:masters",
      ]);
      assert.equal(r.status, 200, r.body);
    });
  } finally {
    await s.close();
  }
});
