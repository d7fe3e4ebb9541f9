import assert from "node:assert/strict";
import { StatusError } from "../../../../shared/errors/status_error.ts";
import { Auditor } from "../../../../apiserver/audit/auditor.ts";
import type { AuditEvent } from "../../../../apiserver/audit/event.ts";
import { legacyLine } from "../../../../apiserver/audit/log_backend.ts";
import { parseAuditPolicy } from "../../../../apiserver/audit/policy.ts";
import type { RequestContext } from "../../../../apiserver/http/filters/filter.ts";
import { withAudit } from "../../../../apiserver/http/filters/with_audit.ts";
import { parseRequestInfo } from "../../../../apiserver/http/request_info.ts";

function recorder(level: string) {
  const events: AuditEvent[] = [];
  const policy = parseAuditPolicy(
    `apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: ${level}\n`,
  );
  const auditor = new Auditor(policy, [{
    write: (e) => void events.push(structuredClone(e)),
    close: () => Promise.resolve(),
  }]);
  return { auditor, events };
}

function ctx(method: string, path: string): RequestContext {
  const url = new URL(`https://localhost${path}`);
  return {
    req: new Request(url, { method, headers: { "x-forwarded-for": "10.0.0.9" } }),
    conn: {
      remoteAddr: { hostname: "127.0.0.1", port: 1 },
      peerCertificates: [],
      signal: new AbortController().signal,
      body: undefined,
      headerNames: [],
    },
    url,
    info: parseRequestInfo(method, url),
    user: { username: "alice", groups: ["dev"] },
    warnings: [],
    started: performance.now(),
    auditID: "id-1",
  };
}

Deno.test("withAudit() records an unexpected failure at stage Panic with a 500", async () => {
  const { auditor, events } = recorder("Metadata");
  const handler = withAudit(auditor)(() => Promise.reject(new Error("boom")));
  await assert.rejects(handler(ctx("GET", "/api/v1/namespaces/default/pods")), /boom/);
  assert.deepEqual(events.map((e) => e.stage), ["RequestReceived", "Panic"]);
  assert.equal(events[1].responseStatus?.code, 500);
  assert.deepEqual(events[1].sourceIPs, ["10.0.0.9", "127.0.0.1"]);
  assert.equal(events[1].verb, "list");
});

Deno.test("withAudit() records a StatusError at ResponseComplete with its Status", async () => {
  const { auditor, events } = recorder("Metadata");
  const handler = withAudit(auditor)(() => {
    throw StatusError.notFound({ group: "", resource: "pods" }, "web");
  });
  await assert.rejects(handler(ctx("GET", "/api/v1/namespaces/default/pods/web")));
  const done = events[1];
  assert.equal(done.stage, "ResponseComplete");
  assert.equal(done.responseStatus?.code, 404);
  assert.equal(done.responseStatus?.reason, "NotFound");
  assert.equal(done.responseStatus?.status, "Failure");
  assert.deepEqual(done.objectRef, {
    resource: "pods",
    namespace: "default",
    name: "web",
    apiVersion: "v1",
  });
});

Deno.test("withAudit() passes requests through untouched at level None", async () => {
  const { auditor, events } = recorder("None");
  const c = ctx("GET", "/api/v1/pods");
  const res = await withAudit(auditor)(() => Promise.resolve(new Response("x")))(c);
  assert.equal(await res.text(), "x");
  assert.equal(events.length, 0);
  assert.equal(c.auditAnnotations, undefined);
});

Deno.test("legacyLine() writes kube's legacy audit line", () => {
  const line = legacyLine({
    kind: "Event",
    apiVersion: "audit.k8s.io/v1",
    level: "Metadata",
    auditID: "a1",
    stage: "ResponseComplete",
    requestURI: "/api/v1/namespaces/ns/pods",
    verb: "list",
    user: { username: "alice", groups: ["dev", "ops"] },
    sourceIPs: ["10.0.0.1"],
    userAgent: "kubectl",
    objectRef: { resource: "pods", namespace: "ns", apiVersion: "v1" },
    responseStatus: { metadata: {}, code: 200 },
    requestReceivedTimestamp: "2026-01-01T00:00:00.000000Z",
    stageTimestamp: "2026-01-01T00:00:00.000000Z",
  });
  assert.equal(
    line,
    '2026-01-01T00:00:00.000000Z AUDIT: id="a1" stage="ResponseComplete" ip="10.0.0.1" ' +
      'method="list" user="alice" groups="\\"dev\\",\\"ops\\"" as="<self>" asgroups="<lookup>" ' +
      'user-agent="kubectl" namespace="ns" uri="/api/v1/namespaces/ns/pods" response="200"\n',
  );
});
