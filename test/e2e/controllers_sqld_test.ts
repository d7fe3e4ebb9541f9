/**
 * Two API servers on one real libSQL server: the controllers of one act on what was written
 * through the other. Server A runs no controllers (`runControllers: false`); a namespace
 * deleted through A is emptied and removed by B's namespace controller, which learns of the
 * deletion only from its change feed (B's periodic resync is minutes away).
 */
import assert from "node:assert/strict";
import { locateSqld, startSqld } from "../apiserver/storage/sqld_server.ts";
import { eventually } from "../support/eventually.ts";
import { startTestServer, type TestServer } from "../support/test_server.ts";

const NS = "/api/v1/namespaces";

async function send(s: TestServer, method: string, path: string, body?: unknown) {
  const res = await s.fetch(path, {
    method,
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = await res.json();
  assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function status(s: TestServer, path: string): Promise<number> {
  const res = await s.fetch(path);
  await res.body?.cancel();
  return res.status;
}

async function count(s: TestServer, path: string): Promise<number> {
  return (await send(s, "GET", path)).items.length;
}

Deno.test("a namespace deleted through one API server is emptied and removed by another's controllers", async () => {
  const bin = await locateSqld();
  if (typeof bin !== "string") {
    console.warn(`skipping: ${bin.skip}`);
    return;
  }
  const sqld = await startSqld(bin);
  let a: TestServer | undefined;
  let b: TestServer | undefined;
  try {
    a = await startTestServer([`--storage-url=${sqld.url}`], {
      optionsHook: (o) => o.runControllers = false,
    });
    b = await startTestServer([`--storage-url=${sqld.url}`]);
    const ns = `${NS}/doomed`;
    await send(a, "POST", NS, { metadata: { name: "doomed" } });
    for (const name of ["one", "two"]) {
      await send(a, "POST", `${ns}/configmaps`, { metadata: { name } });
    }
    await send(a, "POST", `${ns}/secrets`, { metadata: { name: "s" }, stringData: { k: "v" } });

    const deleted = await send(a, "DELETE", ns);
    assert.equal(deleted.status?.phase, "Terminating");
    // B's namespace controller resyncs only every 5 minutes: within this deadline only its
    // change feed can have told it.
    const deadline = { timeoutMs: 120_000, intervalMs: 100 };
    await eventually("B removes the namespace", async () => await status(b!, ns) === 404, deadline);
    // Both servers agree: the namespace and its content are gone.
    assert.equal(await status(a, ns), 404);
    assert.equal(await count(a, `${ns}/configmaps`), 0);
    assert.equal(await count(a, `${ns}/secrets`), 0);
  } finally {
    await b?.close();
    await a?.close();
    await sqld.stop();
  }
});
