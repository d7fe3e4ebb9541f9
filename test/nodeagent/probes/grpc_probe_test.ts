import assert from "node:assert/strict";
import http2 from "node:http2";
import {
  decodeHealthCheckStatus,
  encodeHealthCheckRequest,
  grpcProbe,
} from "../../../nodeagent/probes/grpc_probe.ts";
import { grpcFrame, grpcUnframe } from "../../../nodeagent/runtime/cri/grpc_client.ts";

/** A plaintext gRPC health server (a fake of the probed application): status by service name. */
async function withHealthServer(
  statuses: Record<string, number>,
  fn: (port: number) => Promise<void>,
): Promise<void> {
  const sessions = new Set<http2.ServerHttp2Session>();
  const server = http2.createServer();
  server.on("session", (s) => {
    sessions.add(s);
    s.on("close", () => sessions.delete(s));
  });
  server.on("stream", (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders) => {
    const chunks: Uint8Array[] = [];
    stream.on("data", (c: Uint8Array) => chunks.push(new Uint8Array(c)));
    stream.on("error", () => {});
    stream.on("end", () => {
      const body = new Uint8Array(chunks.flatMap((c) => [...c]));
      const req = grpcUnframe(body).messages[0] ?? new Uint8Array();
      const service = new TextDecoder().decode(req.slice(2));
      const known = headers[":path"] === "/grpc.health.v1.Health/Check" && service in statuses;
      stream.respond({ ":status": 200, "content-type": "application/grpc" }, {
        waitForTrailers: true,
      });
      stream.on(
        "wantTrailers",
        () => stream.sendTrailers({ "grpc-status": known ? "0" : "12", "grpc-message": "nope" }),
      );
      stream.end(known ? grpcFrame(new Uint8Array([0x08, statuses[service]])) : undefined);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  try {
    await fn((server.address() as { port: number }).port);
  } finally {
    for (const s of sessions) s.close();
    await new Promise<void>((r) => server.close(() => r()));
  }
}

Deno.test("encodeHealthCheckRequest() and decodeHealthCheckStatus() follow the wire format", () => {
  assert.deepEqual([...encodeHealthCheckRequest("")], []);
  assert.deepEqual([...encodeHealthCheckRequest("db")], [0x0a, 2, 0x64, 0x62]);
  assert.equal(decodeHealthCheckStatus(new Uint8Array([0x08, 2])), 2);
  assert.equal(decodeHealthCheckStatus(new Uint8Array()), 0);
});

Deno.test("grpcProbe() checks grpc.health.v1.Health as the kubelet does", async (t) => {
  await withHealthServer({ "": 1, db: 2 }, async (port) => {
    await t.step("SERVING is success", async () => {
      assert.deepEqual(await grpcProbe("127.0.0.1", port, "", 5_000), {
        result: "success",
        output: "service healthy",
      });
    });
    await t.step("NOT_SERVING is failure", async () => {
      assert.deepEqual(await grpcProbe("127.0.0.1", port, "db", 5_000), {
        result: "failure",
        output: 'service unhealthy (responded with "NOT_SERVING")',
      });
    });
    await t.step("an unknown service is failure (Unimplemented here)", async () => {
      const out = await grpcProbe("127.0.0.1", port, "other", 5_000);
      assert.equal(out.result, "failure");
      assert.match(out.output, /^this server does not implement the grpc health protocol/);
    });
  });
  await t.step("nothing listening is a failure to connect", async () => {
    const l = Deno.listen({ port: 0, hostname: "127.0.0.1" });
    const port = (l.addr as Deno.NetAddr).port;
    l.close();
    const out = await grpcProbe("127.0.0.1", port, "", 5_000);
    assert.equal(out.result, "failure");
    assert.match(out.output, /^timeout: failed to connect service "127\.0\.0\.1:\d+" within 5s/);
  });
});
