import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { request as httpsRequest } from "node:https";
import type { IncomingMessage } from "node:http";
import { splitHeaderList } from "../../../shared/http/send_response.ts";
import {
  BUFFERED_REQUEST_BODY_BYTES,
  type ConnInfo,
  fixedResponse,
  serveHttps,
} from "../../../shared/http/https_server.ts";
import { issueCertificate } from "../../../shared/pki/issue_certificate.ts";
import { servingPki, withHttpsServer } from "../../support/test_pki.ts";
import { pemCertificates } from "../../../shared/pki/pem.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";

const { ca, serving } = await servingPki();
const client = await issueCertificate({
  ca,
  commonName: "jane",
  organizations: ["dev"],
  usages: "client",
});

interface Reply {
  status: number;
  rawHeaders: string[];
  body: string;
}

function call(
  port: number,
  path: string,
  init: {
    method?: string;
    headers?: Record<string, string>;
    body?: string | Uint8Array;
    cert?: boolean;
    /** The name the serving certificate is checked against (default: from the Host). */
    servername?: string;
  } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest({
      host: "127.0.0.1",
      port,
      path,
      method: init.method ?? "GET",
      headers: init.headers,
      ca: ca.certPem,
      agent: false,
      ...(init.cert ? { cert: client.certPem, key: client.keyPem } : {}),
      ...(init.servername ? { servername: init.servername } : {}),
    }, (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          rawHeaders: res.rawHeaders,
          body: Buffer.concat(chunks).toString("utf8"),
        }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(init.body);
  });
}

function headerValues(raw: string[], name: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) if (raw[i].toLowerCase() === name) out.push(raw[i + 1]);
  return out;
}

function withServer(
  handler: (req: Request, conn: ConnInfo) => Promise<Response> | Response,
  fn: (port: number) => Promise<void>,
  extra: { maxRequestBodyBytes?: number; onError?: (err: unknown) => void } = {},
): Promise<void> {
  return withHttpsServer(serving, handler, (server) => fn(server.port), {
    requestClientCert: true,
    ...extra,
  });
}

Deno.test("serveHttps() passes method, URL, headers and body to the handler", async () => {
  await withServer(async (req) => {
    const body = await req.text();
    return Response.json({
      method: req.method,
      url: req.url,
      header: req.headers.get("x-test"),
      body,
    });
  }, async (port) => {
    const reply = await call(port, "/api/v1/namespaces?limit=2", {
      method: "POST",
      headers: { "x-test": "yes", "content-type": "application/json" },
      body: '{"a":1}',
    });
    assert.equal(reply.status, 200);
    assert.deepEqual(JSON.parse(reply.body), {
      method: "POST",
      url: `https://127.0.0.1:${port}/api/v1/namespaces?limit=2`,
      header: "yes",
      body: '{"a":1}',
    });
    assert.equal(headerValues(reply.rawHeaders, "content-length")[0], String(reply.body.length));
  });
});

Deno.test("serveHttps() sends each Warning as its own header line", async () => {
  await withServer(() => {
    const headers = new Headers();
    headers.append("Warning", '299 - "first, with a comma"');
    headers.append("Warning", '299 - "second \\"quoted\\""');
    return new Response("ok", { headers });
  }, async (port) => {
    const reply = await call(port, "/");
    assert.deepEqual(headerValues(reply.rawHeaders, "warning"), [
      '299 - "first, with a comma"',
      '299 - "second \\"quoted\\""',
    ]);
  });
});

Deno.test("splitHeaderList() keeps commas inside quoted strings", async (t) => {
  const cases: [string, string[]][] = [
    ["a, b", ["a", "b"]],
    ['299 - "x, y", 299 - "z"', ['299 - "x, y"', '299 - "z"']],
    ['299 - "a \\" , b"', ['299 - "a \\" , b"']],
    ["", []],
  ];
  for (const [input, want] of cases) {
    await t.step(input || "(empty)", () => assert.deepEqual(splitHeaderList(input), want));
  }
});

Deno.test("serveHttps() hands the presented client certificate to the handler as DER", async () => {
  const seen: Uint8Array[][] = [];
  await withServer((_req, conn) => {
    seen.push(conn.peerCertificates);
    return new Response(conn.remoteAddr.hostname);
  }, async (port) => {
    const withCert = await call(port, "/", { cert: true });
    assert.equal(withCert.body, "127.0.0.1");
    await call(port, "/");
  });
  assert.equal(seen.length, 2);
  assert.equal(seen[0].length, 1);
  assert.deepEqual(seen[0][0], pemCertificates(client.certPem)[0]);
  assert.deepEqual(seen[1], []);
});

Deno.test("serveHttps() streams a response chunk by chunk", async () => {
  let release!: () => void;
  const released = new Promise<void>((r) => release = r);
  await withServer(() => {
    const enc = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(enc.encode("first\n"));
        await released;
        controller.enqueue(enc.encode("second\n"));
        controller.close();
      },
    });
    return new Response(body, { headers: { "content-type": "application/json" } });
  }, async (port) => {
    // HTTP/1.1 (the chunked framing is the subject; HTTP/2 streams are tested beside Http2Connection).
    const http = Deno.createHttpClient({ caCerts: [ca.certPem], http2: false });
    try {
      const res = await fetch(`https://127.0.0.1:${port}/watch`, { client: http });
      assert.equal(res.headers.get("transfer-encoding"), "chunked");
      const reader = res.body!.getReader();
      const dec = new TextDecoder();
      let text = "";
      while (!text.includes("first\n")) {
        const { value, done } = await reader.read();
        assert.ok(!done, "stream ended before the first chunk");
        text += dec.decode(value);
      }
      // The second chunk is only produced after the first one reached us.
      assert.equal(text, "first\n");
      release();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        text += dec.decode(value);
      }
      assert.equal(text, "first\nsecond\n");
    } finally {
      http.close();
    }
  });
});

Deno.test("serveHttps() aborts the ConnInfo's signal and cancels the body when the client leaves", async () => {
  let aborted!: () => void;
  const abortedP = new Promise<void>((r) => aborted = r);
  let cancelled!: () => void;
  const cancelledP = new Promise<void>((r) => cancelled = r);
  await withServer((req, conn) => {
    assert.notEqual(conn.signal, req.signal, "the listener's own signal");
    conn.signal.addEventListener("abort", () => aborted());
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("hello\n"));
      },
      cancel() {
        cancelled();
      },
    });
    return new Response(body);
  }, async (port) => {
    const http = Deno.createHttpClient({ caCerts: [ca.certPem] });
    try {
      const controller = new AbortController();
      const res = await fetch(`https://127.0.0.1:${port}/`, {
        client: http,
        signal: controller.signal,
      });
      const reader = res.body!.getReader();
      await reader.read();
      controller.abort();
      await reader.cancel().catch(() => {});
      await abortedP;
      await cancelledP;
    } finally {
      http.close();
    }
  });
});

Deno.test("serveHttps() answers 413 for bodies over the limit", async (t) => {
  await withServer(async (req) => {
    const text = await req.text();
    return new Response(String(text.length));
  }, async (port) => {
    await t.step("declared Content-Length", async () => {
      const reply = await call(port, "/", { method: "POST", body: "x".repeat(2048) });
      assert.equal(reply.status, 413);
      const status = JSON.parse(reply.body);
      assert.equal(status.kind, "Status");
      assert.equal(status.reason, "RequestEntityTooLarge");
    });
    await t.step("chunked body", async () => {
      const reply = await call(port, "/", {
        method: "POST",
        headers: { "transfer-encoding": "chunked" },
        body: "y".repeat(4096),
      });
      assert.equal(reply.status, 413);
    });
    await t.step("within the limit", async () => {
      const reply = await call(port, "/", { method: "POST", body: "z".repeat(512) });
      assert.equal(reply.status, 200);
      assert.equal(reply.body, "512");
    });
  }, { maxRequestBodyBytes: 1024 });
});

Deno.test("serveHttps() turns handler exceptions into Status responses", async (t) => {
  const errors: unknown[] = [];
  await withServer((req) => {
    if (req.url.endsWith("/boom")) throw new Error("boom");
    throw StatusError.pathNotFound();
  }, async (port) => {
    await t.step("plain error is 500", async () => {
      const reply = await call(port, "/boom");
      assert.equal(reply.status, 500);
      const status = JSON.parse(reply.body);
      assert.equal(status.reason, "InternalError");
    });
    await t.step("StatusError keeps its code", async () => {
      const reply = await call(port, "/missing");
      assert.equal(reply.status, 404);
      assert.equal(JSON.parse(reply.body).reason, "NotFound");
    });
  }, { onError: (err) => errors.push(err) });
  assert.equal(errors.length, 1);
});

Deno.test("serveHttps() keeps connections alive between requests", async () => {
  const ports: number[] = [];
  await withServer((_req, conn) => {
    ports.push(conn.remoteAddr.port);
    return new Response("ok");
  }, async (port) => {
    const http = Deno.createHttpClient({ caCerts: [ca.certPem], http2: false });
    try {
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`https://localhost:${port}/`, { client: http });
        assert.equal(await res.text(), "ok");
      }
    } finally {
      http.close();
    }
  });
  assert.equal(new Set(ports).size, 1);
});

Deno.test("serveHttps() close() ends open streams", async () => {
  let started!: () => void;
  const startedP = new Promise<void>((r) => started = r);
  const server = await serveHttps(() => {
    started();
    return new Response(
      new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(new TextEncoder().encode("x"));
        },
      }),
    );
  }, {
    hostname: "127.0.0.1",
    port: 0,
    certPem: serving.certPem,
    keyPem: serving.keyPem,
    requestClientCert: false,
  });
  const http = Deno.createHttpClient({ caCerts: [ca.certPem] });
  try {
    const res = await fetch(`https://127.0.0.1:${server.port}/`, { client: http });
    await startedP;
    const reader = res.body!.getReader();
    await reader.read();
    await server.close();
    await assert.rejects(async () => {
      for (;;) if ((await reader.read()).done) throw new Error("ended cleanly");
    });
  } finally {
    http.close();
    await server.close();
  }
});

Deno.test("serveHttps() reads small bodies ahead and streams the others", async (t) => {
  await withServer(async (req, conn) => {
    const buffered = conn.body;
    const text = await req.text();
    return Response.json({
      buffered: buffered ? new TextDecoder().decode(buffered) : null,
      length: text.length,
    });
  }, async (port) => {
    const cases: [string, { body: string; headers?: Record<string, string> }, boolean][] = [
      ["declared and small", { body: "a".repeat(100) }, true],
      ["declared at the limit", { body: "b".repeat(BUFFERED_REQUEST_BODY_BYTES) }, true],
      ["declared and larger", { body: "c".repeat(BUFFERED_REQUEST_BODY_BYTES + 1) }, false],
      ["chunked", { body: "d".repeat(10), headers: { "transfer-encoding": "chunked" } }, false],
    ];
    for (const [name, init, ahead] of cases) {
      await t.step(name, async () => {
        const reply = await call(port, "/", { method: "POST", ...init });
        assert.equal(reply.status, 200);
        const got = JSON.parse(reply.body);
        assert.equal(got.length, init.body.length);
        assert.equal(got.buffered, ahead ? init.body : null);
      });
    }
  }, { maxRequestBodyBytes: 4 * BUFFERED_REQUEST_BODY_BYTES });
});

Deno.test("fixedResponse() is sent whole with its Content-Length", async (t) => {
  await withServer((req) => {
    if (req.url.endsWith("/empty")) return fixedResponse(null, { status: 204 });
    return fixedResponse("h\u00e9llo", {
      status: 201,
      headers: [["x-a", "1"], ["warning", '299 - "a, b"'], ["warning", '299 - "c"']],
    });
  }, async (port) => {
    await t.step("body, length and headers", async () => {
      const reply = await call(port, "/");
      assert.equal(reply.status, 201);
      assert.equal(reply.body, "h\u00e9llo");
      assert.deepEqual(headerValues(reply.rawHeaders, "content-length"), ["6"]);
      assert.deepEqual(headerValues(reply.rawHeaders, "x-a"), ["1"]);
      assert.deepEqual(headerValues(reply.rawHeaders, "warning"), ['299 - "a, b"', '299 - "c"']);
    });
    await t.step("HEAD has no body", async () => {
      const reply = await call(port, "/", { method: "HEAD" });
      assert.equal(reply.status, 201);
      assert.equal(reply.body, "");
    });
    await t.step("no body", async () => {
      const reply = await call(port, "/empty");
      assert.equal(reply.status, 204);
      assert.equal(reply.body, "");
    });
  });
  await t.step("an ordinary Response elsewhere", async () => {
    const res = fixedResponse(new TextEncoder().encode("abc"), { status: 200 });
    assert.equal(await res.text(), "abc");
  });
});

Deno.test("serveHttps() lists the header names as the client sent them", async () => {
  await withServer((_req, conn) => Response.json(conn.headerNames), async (port) => {
    const reply = await call(port, "/", {
      headers: { "X-Mixed-Case": "1", "impersonate-user": "a" },
    });
    const names = JSON.parse(reply.body) as string[];
    assert.ok(names.includes("X-Mixed-Case"), names.join(","));
    assert.ok(names.includes("impersonate-user"), names.join(","));
  });
});

Deno.test("serveHttps() builds the URL from a plain Host header, else from its address", async (t) => {
  await withServer((req) => new Response(req.url), async (port) => {
    const cases: [string, string, string][] = [
      ["name and port", "example.com:8443", "https://example.com:8443/a?b=1"],
      ["IPv6", "[::1]:6443", "https://[::1]:6443/a?b=1"],
      ["not a host", "bad host", `https://127.0.0.1:${port}/a?b=1`],
    ];
    for (const [name, host, want] of cases) {
      await t.step(name, async () => {
        const reply = await call(port, "/a?b=1", { headers: { host }, servername: "localhost" });
        assert.equal(reply.body, want);
      });
    }
  });
});
