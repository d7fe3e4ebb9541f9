/**
 * Two API servers on one libSQL server create Services at once: no ClusterIP or NodePort is
 * handed out twice, and a Service deleted through one frees its address for the other.
 */
import assert from "node:assert/strict";
import { locateSqld, startSqld } from "../apiserver/storage/sqld_server.ts";
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import { assertOk, call } from "./foundation_helpers.ts";

const SVC = "/api/v1/namespaces/default/services";

Deno.test("two API servers sharing one database never allocate one ClusterIP or NodePort twice", async () => {
  const bin = await locateSqld();
  if (typeof bin !== "string") {
    console.warn(`skipping: ${bin.skip}`);
    return;
  }
  const sqld = await startSqld(bin);
  const servers: TestServer[] = [];
  try {
    // A narrow range makes collisions of random choices likely.
    const flags = [
      `--storage-url=${sqld.url}`,
      "--service-cluster-ip-range=10.0.0.0/26",
      "--service-node-port-range=30000-30063",
    ];
    servers.push(await startTestServer(flags));
    servers.push(await startTestServer(flags));
    const n = 40;
    const replies = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        call(servers[i % 2], "POST", SVC, {
          metadata: { name: `s${i}` },
          spec: { type: "NodePort", ports: [{ port: 80 }] },
        })),
    );
    const made = replies.map((r) => assertOk(r, 201));
    const ips = made.map((o) => (o.spec as { clusterIP: string }).clusterIP);
    const ports = made.map((o) => (o.spec as { ports: { nodePort: number }[] }).ports[0].nodePort);
    assert.equal(new Set(ips).size, n);
    assert.equal(new Set(ports).size, n);
    assert.ok(!ips.includes("10.0.0.1"), "the kubernetes Service's address is never handed out");
    const first = made[0] as KubeObject;
    assertOk(await call(servers[1], "DELETE", `${SVC}/${first.metadata.name}`), 200);
    const again = assertOk(
      await call(servers[0], "POST", SVC, {
        metadata: { name: "again" },
        spec: { clusterIP: ips[0], ports: [{ port: 80 }] },
      }),
      201,
    );
    assert.equal((again.spec as { clusterIP: string }).clusterIP, ips[0]);
  } finally {
    for (const s of servers) await s.close();
    await sqld.stop();
  }
});
