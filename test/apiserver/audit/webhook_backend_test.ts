import assert from "node:assert/strict";
import type { AuditEvent } from "../../../apiserver/audit/event.ts";
import { webhookBackend } from "../../../apiserver/audit/webhook_backend.ts";

function event(id: string): AuditEvent {
  return {
    kind: "Event",
    apiVersion: "audit.k8s.io/v1",
    level: "Metadata",
    auditID: id,
    stage: "ResponseComplete",
    requestURI: "/api/v1/pods",
    verb: "list",
    user: { username: "u" },
    requestReceivedTimestamp: "2026-01-01T00:00:00.000000Z",
    stageTimestamp: "2026-01-01T00:00:00.000000Z",
  };
}

/** A fake external webhook: records each EventList; fails the first `failures` POSTs. */
function fakeWebhook(failures = 0) {
  const batches: { auth: string | null; body: Record<string, unknown> }[] = [];
  let calls = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const body = await req.json();
    if (calls++ < failures) return new Response("no", { status: 500 });
    batches.push({ auth: req.headers.get("authorization"), body });
    return new Response("{}", { status: 200 });
  });
  return { server, batches, url: `http://127.0.0.1:${server.addr.port}/audit` };
}

Deno.test("webhookBackend() sends EventLists of at most maxBatchSize events", async () => {
  const hook = fakeWebhook();
  const backend = webhookBackend({
    config: { server: hook.url, token: "hook-token" },
    mode: "batch",
    maxBatchSize: 2,
    maxBatchWaitMs: 50,
    initialBackoffMs: 10,
  });
  try {
    for (const id of ["a", "b", "c", "d", "e"]) backend.write(event(id));
    await new Promise((r) => setTimeout(r, 300));
    await backend.close();
    const sizes = hook.batches.map((b) => (b.body.items as unknown[]).length);
    assert.deepEqual(sizes, [2, 2, 1]);
    const first = hook.batches[0];
    assert.equal(first.body.kind, "EventList");
    assert.equal(first.body.apiVersion, "audit.k8s.io/v1");
    assert.equal(first.auth, "Bearer hook-token");
    const ids = hook.batches.flatMap((b) => (b.body.items as AuditEvent[]).map((e) => e.auditID));
    assert.deepEqual(ids, ["a", "b", "c", "d", "e"]);
  } finally {
    await hook.server.shutdown();
  }
});

Deno.test("webhookBackend() retries a failed batch with backoff and flushes on close", async () => {
  const hook = fakeWebhook(2);
  const backend = webhookBackend({
    config: { server: hook.url },
    mode: "batch",
    maxBatchSize: 400,
    maxBatchWaitMs: 60_000,
    initialBackoffMs: 10,
  });
  try {
    backend.write(event("x"));
    backend.write(event("y"));
    // The batch has not filled: close sends it, once (the server fails it: dropped).
    await backend.close();
    assert.equal(hook.batches.length, 0);
    const retrying = webhookBackend({
      config: { server: hook.url },
      mode: "blocking",
      maxBatchSize: 400,
      maxBatchWaitMs: 60_000,
      initialBackoffMs: 10,
    });
    retrying.write(event("z"));
    await new Promise((r) => setTimeout(r, 200));
    await retrying.close();
    // Sent at once, failed once more, then retried after the backoff.
    const all = hook.batches.flatMap((b) => (b.body.items as AuditEvent[]).map((e) => e.auditID));
    assert.deepEqual(all, ["z"]);
  } finally {
    await hook.server.shutdown();
  }
});
