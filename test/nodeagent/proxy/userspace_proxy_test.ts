import assert from "node:assert/strict";
import dgram from "node:dgram";
import type { ServicePortRule } from "../../../nodeagent/proxy/proxy_table.ts";
import { UserspaceProxy } from "../../../nodeagent/proxy/userspace_proxy.ts";
import { ClusterIpAddresses } from "../../../nodeagent/proxy/cluster_ip_addresses.ts";

/** A TCP server on 127.0.0.1 that answers each line with `<tag>:<line>`. */
function taggedEcho(tag: string): { port: number; close: () => void } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  (async () => {
    for await (const conn of listener) {
      (async () => {
        const buf = new Uint8Array(1024);
        try {
          for (;;) {
            const n = await conn.read(buf);
            if (n === null) break;
            await conn.write(
              new TextEncoder().encode(`${tag}:${new TextDecoder().decode(buf.subarray(0, n))}`),
            );
          }
        } catch { /* reset */ }
        try {
          conn.close();
        } catch { /* closed */ }
      })();
    }
  })().catch(() => {});
  return { port: (listener.addr as Deno.NetAddr).port, close: () => listener.close() };
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

async function ask(conn: Deno.Conn, text: string): Promise<string | null> {
  await conn.write(new TextEncoder().encode(text));
  const buf = new Uint8Array(1024);
  const n = await conn.read(buf).catch(() => null);
  return n === null ? null : new TextDecoder().decode(buf.subarray(0, n));
}

Deno.test("UserspaceProxy relays NodePort connections to endpoints and ends them when the endpoint goes", async () => {
  const a = taggedEcho("a");
  const b = taggedEcho("b");
  const nodePort = freePort();
  const proxy = new UserspaceProxy({ nodePortAddresses: ["127.0.0.1"] });
  const rule: ServicePortRule = {
    name: "default/web:",
    protocol: "TCP",
    clusterIPs: ["10.96.0.10"],
    port: 80,
    nodePort,
    endpoints: [{ ip: "127.0.0.1", port: a.port }],
  };
  try {
    await proxy.apply([rule]);
    assert.deepEqual(
      proxy.listening,
      [`TCP 127.0.0.1:${nodePort}`],
      "no cluster IPs without an assigner",
    );
    const c1 = await Deno.connect({ hostname: "127.0.0.1", port: nodePort });
    assert.equal(await ask(c1, "hello"), "a:hello");

    // The endpoint is replaced: the open connection ends, new ones reach the new endpoint.
    await proxy.apply([{ ...rule, endpoints: [{ ip: "127.0.0.1", port: b.port }] }]);
    assert.equal(await ask(c1, "again"), null);
    c1.close();
    const c2 = await Deno.connect({ hostname: "127.0.0.1", port: nodePort });
    assert.equal(await ask(c2, "hi"), "b:hi");
    c2.close();

    // No endpoints: connections are closed at once.
    await proxy.apply([{ ...rule, endpoints: [] }]);
    const c3 = await Deno.connect({ hostname: "127.0.0.1", port: nodePort });
    assert.equal(await ask(c3, "anyone"), null);
    c3.close();

    // The Service is gone: the port is free again.
    await proxy.apply([]);
    assert.deepEqual(proxy.listening, []);
    await assert.rejects(Deno.connect({ hostname: "127.0.0.1", port: nodePort }));
  } finally {
    await proxy.close();
    a.close();
    b.close();
  }
});

Deno.test("UserspaceProxy leaves a ClusterIP whose port is the pods' port to the pods", async () => {
  const calls: string[] = [];
  const clusterIPs = new ClusterIpAddresses({
    ip: (args) => {
      calls.push(args.join(" "));
      return Promise.resolve({ ok: true, stderr: "" });
    },
  });
  const proxy = new UserspaceProxy({ nodePortAddresses: [], clusterIPs });
  const port = freePort();
  const rule: ServicePortRule = {
    name: "default/web:",
    protocol: "TCP",
    clusterIPs: ["127.0.0.1"],
    port,
    targetPort: port,
    endpoints: [],
  };
  try {
    await proxy.apply([rule]);
    assert.deepEqual(proxy.listening, [], "the same port as targetPort");
    await proxy.apply([{ ...rule, targetPort: undefined, endpoints: [{ ip: "10.1.0.1", port }] }]);
    assert.deepEqual(proxy.listening, [], "an endpoint on the same port");
    await proxy.apply([{ ...rule, targetPort: 1 }]);
    assert.deepEqual(proxy.listening, [`TCP 127.0.0.1:${port}`]);
  } finally {
    await proxy.close();
  }
  assert.ok(calls.includes("addr add 127.0.0.1/32 dev nodeagent-svc0"), calls.join("\n"));
});

Deno.test("UserspaceProxy tries another endpoint when one refuses", async () => {
  const a = taggedEcho("a");
  const dead = freePort();
  const nodePort = freePort();
  const proxy = new UserspaceProxy({ nodePortAddresses: ["127.0.0.1"] });
  try {
    await proxy.apply([{
      name: "default/web:",
      protocol: "TCP",
      clusterIPs: [],
      port: 80,
      nodePort,
      endpoints: [{ ip: "127.0.0.1", port: a.port }, { ip: "127.0.0.1", port: dead }],
    }]);
    for (let i = 0; i < 4; i++) {
      const c = await Deno.connect({ hostname: "127.0.0.1", port: nodePort });
      assert.equal(await ask(c, `x${i}`), `a:x${i}`);
      c.close();
    }
  } finally {
    await proxy.close();
    a.close();
  }
});

/** A UDP server on 127.0.0.1 that answers each datagram with `<tag>:<datagram>`. */
function udpEcho(tag: string): Promise<{ port: number; close: () => void }> {
  const s = dgram.createSocket("udp4");
  s.on("message", (m, from) => s.send(`${tag}:${m}`, from.port, from.address));
  return new Promise((resolve) =>
    s.bind(0, "127.0.0.1", () => resolve({ port: s.address().port, close: () => s.close() }))
  );
}

function udpClient(): { ask: (port: number, text: string) => Promise<string>; close: () => void } {
  const c = dgram.createSocket("udp4");
  const replies: string[] = [];
  let wake = () => {};
  c.on("message", (m) => {
    replies.push(String(m));
    wake();
  });
  return {
    async ask(port, text) {
      c.send(text, port, "127.0.0.1");
      const deadline = Date.now() + 10_000;
      while (!replies.length && Date.now() < deadline) {
        await new Promise<void>((r) => {
          wake = r;
          setTimeout(r, 200);
        });
      }
      return replies.shift() ?? "no reply";
    },
    close: () => c.close(),
  };
}

Deno.test("UserspaceProxy forwards UDP by client session and moves sessions off a removed endpoint", async () => {
  const a = await udpEcho("a");
  const b = await udpEcho("b");
  const nodePort = freePort();
  const proxy = new UserspaceProxy({ nodePortAddresses: ["127.0.0.1"] });
  const rule: ServicePortRule = {
    name: "default/dns:",
    protocol: "UDP",
    clusterIPs: [],
    port: 53,
    nodePort,
    endpoints: [{ ip: "127.0.0.1", port: a.port }],
  };
  const client = udpClient();
  try {
    await proxy.apply([rule]);
    assert.deepEqual(proxy.listening, [`UDP 127.0.0.1:${nodePort}`]);
    assert.equal(await client.ask(nodePort, "one"), "a:one");
    assert.equal(await client.ask(nodePort, "two"), "a:two");
    await proxy.apply([{ ...rule, endpoints: [{ ip: "127.0.0.1", port: b.port }] }]);
    assert.equal(await client.ask(nodePort, "three"), "b:three");
  } finally {
    client.close();
    await proxy.close();
    a.close();
    b.close();
  }
});
