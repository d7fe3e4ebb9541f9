import assert from "node:assert/strict";
import { createCA, issueCertificate } from "../../../shared/pki/issue_certificate.ts";
import {
  WebhookClient,
  WebhookError,
  webhookURL,
} from "../../../apiserver/webhook/webhook_client.ts";
import type { ServiceEndpointSource } from "../../../apiserver/webhook/service_resolver.ts";
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";

/** The WebhookError `fn` rejects with. */
async function rejection(fn: () => Promise<unknown>): Promise<WebhookError> {
  try {
    await fn();
  } catch (err) {
    assert.ok(err instanceof WebhookError, String(err));
    return err;
  }
  throw new Error("expected a rejection");
}

type Handler = (
  req: Request,
  info: Deno.ServeHandlerInfo<Deno.NetAddr>,
) => Response | Promise<Response>;

async function pki(dnsNames: string[] = ["localhost"]) {
  const ca = await createCA("webhook-test-ca");
  const serving = await issueCertificate({
    ca,
    commonName: "webhook",
    dnsNames,
    ipAddresses: ["127.0.0.1"],
    usages: "server",
  });
  return { ca, serving, caBundle: btoa(ca.certPem) };
}

async function withServer(
  serving: { certPem: string; keyPem: string },
  handler: Handler,
  fn: (port: number) => Promise<void>,
): Promise<void> {
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    cert: serving.certPem,
    key: serving.keyPem,
    onListen() {},
    onError: () => new Response("error", { status: 500 }),
  }, handler);
  try {
    await fn(server.addr.port);
  } finally {
    await server.shutdown();
  }
}

Deno.test("WebhookClient.post() sends JSON to a url and reuses the connection", async () => {
  const { serving, caBundle } = await pki();
  const ports: number[] = [];
  const seen: { body: unknown; url: string; type: string | null }[] = [];
  await withServer(serving, async (req, info) => {
    ports.push(info.remoteAddr.port);
    seen.push({ body: await req.json(), url: req.url, type: req.headers.get("content-type") });
    return Response.json({ ok: true });
  }, async (port) => {
    const client = new WebhookClient();
    try {
      const config = { url: `https://127.0.0.1:${port}/hook`, caBundle };
      assert.deepEqual(await client.post(config, { a: 1 }, { timeoutMs: 10_000 }), { ok: true });
      assert.deepEqual(await client.post(config, { a: 2 }, { timeoutMs: 10_000 }), { ok: true });
    } finally {
      client.close();
    }
  });
  assert.deepEqual(seen.map((s) => s.body), [{ a: 1 }, { a: 2 }]);
  assert.deepEqual(new URL(seen[0].url).pathname, "/hook");
  assert.deepEqual(new URL(seen[0].url).search, "?timeout=10s");
  assert.deepEqual(seen[0].type, "application/json");
  assert.deepEqual(ports[0], ports[1], "the second call reuses the keep-alive connection");
});

Deno.test("WebhookClient.post() reaches a service through a ready endpoint with its DNS name", async () => {
  const { serving, caBundle } = await pki(["hooks.webhooks.svc"]);
  let host = "";
  await withServer(serving, (req) => {
    host = req.headers.get("host") ?? "";
    return Response.json({ path: new URL(req.url).pathname });
  }, async (port) => {
    const source: ServiceEndpointSource = {
      getService: (ns, name) =>
        Promise.resolve(
          ns === "webhooks" && name === "hooks"
            ? {
              metadata: { name, namespace: ns },
              spec: { ports: [{ name: "https", port: 443, targetPort: port }] },
            } as KubeObject
            : undefined,
        ),
      listEndpointSlices: () =>
        Promise.resolve([{
          metadata: { name: "hooks-1", namespace: "webhooks" },
          addressType: "IPv4",
          ports: [{ name: "https", port }],
          endpoints: [
            { addresses: ["127.0.0.2"], conditions: { ready: false } },
            { addresses: ["127.0.0.1"], conditions: { ready: true } },
          ],
        } as unknown as KubeObject]),
    };
    const client = new WebhookClient({ endpoints: source });
    try {
      const service = { namespace: "webhooks", name: "hooks", path: "/mutate" };
      const answer = await client.post({ service, caBundle }, {}, { timeoutMs: 10_000 });
      assert.deepEqual(answer, { path: "/mutate" });
      const err = await rejection(
        () =>
          client.post({ service: { ...service, name: "absent" }, caBundle }, {}, {
            timeoutMs: 10_000,
          }),
      );
      assert.deepEqual(err.kind, "unreachable");
      assert.deepEqual(
        err.message,
        'Post "https://absent.webhooks.svc:443/mutate?timeout=10s": service "absent" not found',
      );
      const badPort = await rejection(
        () =>
          client.post({ service: { ...service, port: 8443 }, caBundle }, {}, { timeoutMs: 1000 }),
      );
      assert.ok(badPort.message.endsWith('no service port 8443 found for service "hooks"'));
    } finally {
      client.close();
    }
  });
  assert.deepEqual(host, "hooks.webhooks.svc:443");
});

Deno.test("WebhookClient.post() types timeouts, statuses, bad bodies and untrusted servers", async () => {
  const { serving, caBundle } = await pki();
  const other = await pki();
  await withServer(serving, async (req) => {
    const path = new URL(req.url).pathname;
    if (path === "/slow") await new Promise((r) => setTimeout(r, 3000));
    if (path === "/status") {
      return Response.json({ kind: "Status", message: "nope", code: 403 }, { status: 403 });
    }
    if (path === "/500") return new Response("boom", { status: 500 });
    if (path === "/text") return new Response("not json");
    if (path === "/big") return new Response("x".repeat(5000));
    return Response.json({});
  }, async (port) => {
    const client = new WebhookClient();
    const call = (
      path: string,
      opts: { timeoutMs: number; maxResponseBytes?: number },
      ca = caBundle,
    ) =>
      rejection(
        () => client.post({ url: `https://127.0.0.1:${port}${path}`, caBundle: ca }, {}, opts),
      );
    try {
      const slow = await call("/slow", { timeoutMs: 300 });
      assert.deepEqual(slow.kind, "timeout");
      assert.deepEqual(
        slow.message,
        `Post "https://127.0.0.1:${port}/slow?timeout=300ms": context deadline exceeded`,
      );
      const status = await call("/status", { timeoutMs: 10_000 });
      assert.deepEqual([status.kind, status.httpStatus, status.message], ["status", 403, "nope"]);
      const generic = await call("/500", { timeoutMs: 10_000 });
      assert.deepEqual(
        generic.message,
        'an error on the server ("boom") has prevented the request from succeeding',
      );
      assert.deepEqual((await call("/text", { timeoutMs: 10_000 })).kind, "body");
      assert.deepEqual(
        (await call("/big", { timeoutMs: 10_000, maxResponseBytes: 1000 })).kind,
        "body",
      );
      const untrusted = await call("/", { timeoutMs: 10_000 }, other.caBundle);
      assert.deepEqual(untrusted.kind, "unreachable");
      assert.ok(
        untrusted.message.includes("certificate signed by unknown authority"),
        untrusted.message,
      );
    } finally {
      client.close();
    }
  });
});

Deno.test("WebhookClient.post() reports a refused connection as unreachable", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const client = new WebhookClient();
  try {
    const err = await rejection(
      () => client.post({ url: `https://127.0.0.1:${port}/` }, {}, { timeoutMs: 5000 }),
    );
    assert.deepEqual(err.kind, "unreachable");
    assert.deepEqual(
      err.message,
      `Post "https://127.0.0.1:${port}/?timeout=5s": dial tcp 127.0.0.1:${port}: connect: connection refused`,
    );
  } finally {
    client.close();
  }
});

Deno.test("WebhookClient.post() fails as unreachable once the client is closed", async () => {
  const client = new WebhookClient();
  client.close();
  const err = await rejection(() =>
    client.post({ url: "https://127.0.0.1:1/" }, {}, { timeoutMs: 1000 })
  );
  assert.equal(err.kind, "unreachable");
  assert.equal(
    err.message,
    'Post "https://127.0.0.1:1/?timeout=1s": the webhook client is closed',
  );
});

Deno.test("webhookURL() names a service by its cluster DNS name", () => {
  assert.deepEqual(
    webhookURL({ service: { namespace: "ns", name: "svc", port: 8443 } }, 30_000),
    "https://svc.ns.svc:8443/?timeout=30s",
  );
  assert.deepEqual(webhookURL({ url: "https://h/x" }, 1500), "https://h/x?timeout=1.5s");
});
