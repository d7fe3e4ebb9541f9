/**
 * Two API servers on one real libSQL server: a CustomResourceDefinition created through one
 * is served by the other (which learns of it from its change feed), and its deletion through
 * one stops both serving it. Skips where no sqld binary is found.
 */
import assert from "node:assert/strict";
import { locateSqld, startSqld } from "../apiserver/storage/sqld_server.ts";
import { eventually } from "../support/eventually.ts";
import { jsonCall } from "../support/json_call.ts";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import { CRDS, createEstablished, cronTab, cronTabCrd, GROUP } from "./_crd_helpers.ts";

const NS = `/apis/${GROUP}/v1/namespaces/default/crontabs`;

Deno.test("a CustomResourceDefinition created through one API server is served by another", async () => {
  const bin = await locateSqld();
  if (typeof bin !== "string") {
    console.warn(`skipping: ${bin.skip}`);
    return;
  }
  const sqld = await startSqld(bin);
  let a: TestServer | undefined;
  let b: TestServer | undefined;
  try {
    a = await startTestServer([`--storage-url=${sqld.url}`]);
    b = await startTestServer([`--storage-url=${sqld.url}`]);
    const [first, second] = [a, b];
    await createEstablished(first, cronTabCrd());
    const deadline = { timeoutMs: 120_000, intervalMs: 100 };
    await eventually("served by the other server", async () => {
      return (await jsonCall(second, "GET", NS)).status === 200 || undefined;
    }, deadline);
    assert.equal((await jsonCall(second, "POST", NS, cronTab("b"))).status, 201);
    assert.equal((await jsonCall(first, "GET", `${NS}/b`)).status, 200);
    assert.equal((await jsonCall(first, "DELETE", `${CRDS}/crontabs.${GROUP}`)).status, 200);
    for (const s of [first, second]) {
      await eventually("not served any more", async () => {
        return (await jsonCall(s, "GET", NS)).status === 404 || undefined;
      }, deadline);
    }
  } finally {
    await a?.close();
    await b?.close();
    await sqld.stop();
  }
});
