/**
 * A libSQL server outage: writes and reads that reach storage answer 503 with Retry-After and
 * a message that says nothing about the database (its detail goes to the log), not a 500
 * carrying the client library's error text.
 */
import assert from "node:assert/strict";
import { locateSqld, startSqld } from "../apiserver/storage/sqld_server.ts";
import { startTestServer } from "../support/test_server.ts";

const CM = "/api/v1/namespaces/default/configmaps";

Deno.test("withOutagesAs503() answers a storage outage with 503 and Retry-After", async (t) => {
  const bin = await locateSqld();
  if (typeof bin !== "string") {
    console.warn(`skipping: ${bin.skip}`);
    return;
  }
  const sqld = await startSqld(bin);
  const s = await startTestServer([`--storage-url=${sqld.url}`]);
  try {
    const created = await s.fetch(CM, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ metadata: { name: "before" } }),
    });
    assert.equal(created.status, 201);
    await created.body?.cancel();
    await sqld.stop();
    const checks: Array<[string, string, RequestInit]> = [
      ["a create", CM, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ metadata: { name: "during" } }),
      }],
      ["a get", `${CM}/before`, {}],
      ["a delete", `${CM}/before`, { method: "DELETE" }],
    ];
    for (const [name, path, init] of checks) {
      await t.step(name, async () => {
        const res = await s.fetch(path, init);
        const status = await res.json();
        assert.equal(res.status, 503, JSON.stringify(status));
        assert.equal(status.reason, "ServiceUnavailable");
        assert.equal(res.headers.get("retry-after"), "1");
        assert.doesNotMatch(status.message, /HRANA|libsql|websocket|sqld|storage write failed/i);
      });
    }
  } finally {
    await s.close().catch(() => {});
    await sqld.stop();
  }
});
