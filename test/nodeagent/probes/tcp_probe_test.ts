import assert from "node:assert/strict";
import { tcpProbe } from "../../../nodeagent/probes/tcp_probe.ts";

Deno.test("tcpProbe() succeeds when the port accepts a connection", async () => {
  const l = Deno.listen({ port: 0, hostname: "127.0.0.1" });
  const accepted = l.accept().then((c) => c.close());
  try {
    const out = await tcpProbe("127.0.0.1", (l.addr as Deno.NetAddr).port, 5_000);
    assert.equal(out.result, "success");
    await accepted;
  } finally {
    l.close();
  }
});

Deno.test("tcpProbe() fails with Go's dial error when nothing listens", async () => {
  const l = Deno.listen({ port: 0, hostname: "127.0.0.1" });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  assert.deepEqual(await tcpProbe("127.0.0.1", port, 5_000), {
    result: "failure",
    output: `dial tcp 127.0.0.1:${port}: connect: connection refused`,
  });
});
