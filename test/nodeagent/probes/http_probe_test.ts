import assert from "node:assert/strict";
import { httpProbe, probeUrl } from "../../../nodeagent/probes/http_probe.ts";

/** A local HTTP server answering by path; `/hang` never answers until closed. */
async function withServer(
  fn: (port: number, seen: Headers[]) => Promise<void>,
): Promise<void> {
  const seen: Headers[] = [];
  const hanging: (() => void)[] = [];
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, (req) => {
    seen.push(req.headers);
    const path = new URL(req.url).pathname;
    if (path === "/hang") {
      return new Promise((r) => hanging.push(() => r(new Response("late"))));
    }
    if (path === "/fail") return new Response("no", { status: 500 });
    if (path === "/moved") return new Response(null, { status: 302, headers: { location: "/" } });
    return new Response("ok");
  });
  try {
    await fn(server.addr.port, seen);
  } finally {
    for (const h of hanging) h();
    await server.shutdown();
  }
}

Deno.test("probeUrl() builds the URL from scheme, host, port and path", () => {
  assert.equal(probeUrl({ port: 80 }, "10.0.0.1", 80), "http://10.0.0.1:80/");
  assert.equal(
    probeUrl({ port: 8443, scheme: "HTTPS", path: "healthz" }, "::1", 8443),
    "https://[::1]:8443/healthz",
  );
});

Deno.test("httpProbe() succeeds for 2xx and 3xx and fails otherwise with kube's message", async () => {
  await withServer(async (port, seen) => {
    assert.equal(
      (await httpProbe({ port, path: "/" }, "127.0.0.1", port, 5_000)).result,
      "success",
    );
    assert.equal(
      (await httpProbe({ port, path: "/moved" }, "127.0.0.1", port, 5_000)).result,
      "success",
    );
    assert.deepEqual(await httpProbe({ port, path: "/fail" }, "127.0.0.1", port, 5_000), {
      result: "failure",
      output: "HTTP probe failed with statuscode: 500",
    });
    assert.equal(seen[0].get("user-agent"), "kube-probe/1.32");
    assert.equal(seen[0].get("accept"), "*/*");
  });
});

Deno.test("httpProbe() sends the probe's headers instead of the defaults", async () => {
  await withServer(async (port, seen) => {
    await httpProbe(
      {
        port,
        httpHeaders: [{ name: "User-Agent", value: "mine" }, { name: "X-Custom", value: "1" }],
      },
      "127.0.0.1",
      port,
      5_000,
    );
    assert.equal(seen[0].get("user-agent"), "mine");
    assert.equal(seen[0].get("x-custom"), "1");
  });
});

Deno.test("httpProbe() fails when the server does not answer in time", async () => {
  await withServer(async (port) => {
    const out = await httpProbe({ port, path: "/hang" }, "127.0.0.1", port, 300);
    assert.equal(out.result, "failure");
    assert.match(out.output, /^Get "http:\/\/127\.0\.0\.1:\d+\/hang": context deadline exceeded/);
  });
});

Deno.test("httpProbe() fails with Go's dial error when nothing listens", async () => {
  const l = Deno.listen({ port: 0, hostname: "127.0.0.1" });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  const out = await httpProbe({ port }, "127.0.0.1", port, 5_000);
  assert.deepEqual(out, {
    result: "failure",
    output:
      `Get "http://127.0.0.1:${port}/": dial tcp 127.0.0.1:${port}: connect: connection refused`,
  });
});
