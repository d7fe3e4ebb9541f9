/**
 * Audit logging end to end: a policy with every level, the stages each request gets, the
 * objects logged per level, annotations, and that no Secret data and no token reaches the
 * audit log or the server log at any verbosity.
 */
import assert from "node:assert/strict";
import { Logger } from "../../shared/log/mod.ts";
import { KUBECTL, runKubectl } from "../support/kubectl.ts";
import { startTestServer, type TestServer } from "../support/test_server.ts";

const POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
  - level: None
    nonResourceURLs: ["/healthz*", "/livez*", "/readyz*"]
  - level: Metadata
    resources: [{group: "", resources: ["secrets"]}]
  - level: RequestResponse
    resources: [{group: "authentication.k8s.io", resources: ["tokenreviews"]}]
  - level: None
    namespaces: ["quiet"]
  - level: Request
    namespaces: ["req"]
    omitStages: [RequestReceived]
  - level: RequestResponse
    namespaces: ["rr"]
    omitManagedFields: true
  - level: Metadata
`;

const SECRET_VALUE = "s3cr3t-payload-value";
const SECRET_B64 = btoa(SECRET_VALUE);

// deno-lint-ignore no-explicit-any
type Ev = Record<string, any>;

async function withAuditServer(
  fn: (ts: TestServer, logPath: string) => Promise<void>,
  check: (events: Ev[], raw: string, serverLog: string) => void,
) {
  const dir = await Deno.makeTempDir({ prefix: "audit-test-" });
  await Deno.writeTextFile(`${dir}/policy.yaml`, POLICY);
  const lines: string[] = [];
  const logger = new Logger({ verbosity: 10, sink: (l) => void lines.push(l) });
  const ts = await startTestServer([
    `--audit-policy-file=${dir}/policy.yaml`,
    `--audit-log-path=${dir}/audit.log`,
  ], { logger });
  let closed = false;
  try {
    await fn(ts, `${dir}/audit.log`);
    await ts.close();
    closed = true;
    const raw = await Deno.readTextFile(`${dir}/audit.log`);
    const events = raw.trim().split("\n").map((l) => JSON.parse(l));
    check(events, raw, lines.join("\n"));
    assert.ok(!raw.includes(ts.server.adminToken), "the admin token is in the audit log");
    assert.ok(!lines.join("\n").includes(ts.server.adminToken), "the token is in the server log");
  } finally {
    if (!closed) await ts.close();
    await Deno.remove(dir, { recursive: true });
  }
}

async function json(ts: TestServer, method: string, path: string, body?: unknown) {
  const res = await ts.fetch(path, {
    method,
    headers: { "content-type": "application/json", "user-agent": "audit-test/1.0" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { res, body: text ? JSON.parse(text) : undefined };
}

const ns = (name: string) => ({ apiVersion: "v1", kind: "Namespace", metadata: { name } });
const cm = (name: string) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name },
  data: { a: "b" },
});

function eventsOf(events: Ev[], uriPart: string, verb: string): Ev[] {
  return events.filter((e) => e.requestURI.includes(uriPart) && e.verb === verb);
}

Deno.test("audit: levels, stages, objects and annotations follow the policy", async () => {
  await withAuditServer(async (ts) => {
    for (const n of ["quiet", "req", "rr"]) await json(ts, "POST", "/api/v1/namespaces", ns(n));
    for (const n of ["quiet", "req", "rr"]) {
      const { res } = await json(ts, "POST", `/api/v1/namespaces/${n}/configmaps`, cm("c1"));
      assert.equal(res.status, 201);
      assert.match(res.headers.get("audit-id") ?? "", /^[0-9a-f-]{36}$/);
    }
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p1" },
      spec: { containers: [{ name: "c", image: "busybox" }] },
    };
    assert.equal((await json(ts, "POST", "/api/v1/namespaces/req/pods", pod)).res.status, 201);
    const mine = await ts.fetch("/api/v1/namespaces/rr/configmaps/c1", {
      headers: { "audit-id": "my-audit-id" },
    });
    await mine.body?.cancel();
    assert.equal(mine.headers.get("audit-id"), "my-audit-id");
    const w = await ts.fetch("/api/v1/namespaces/rr/configmaps?watch=1&timeoutSeconds=1");
    await w.text();
    const denied = await ts.fetch("/api/v1/namespaces/rr/configmaps", {
      headers: { "impersonate-user": "nobody" },
    });
    assert.equal(denied.status, 403);
    await denied.body?.cancel();
    const unauth = await ts.fetch("/api/v1/namespaces", { headers: { authorization: "Bearer x" } });
    assert.equal(unauth.status, 401);
    assert.ok(unauth.headers.get("audit-id"));
    await unauth.body?.cancel();
  }, (events) => {
    assert.equal(eventsOf(events, "/namespaces/quiet/", "create").length, 0);
    // Request level, RequestReceived omitted: one event with the request but not the response.
    const req = eventsOf(events, "/namespaces/req/configmaps", "create");
    assert.deepEqual(req.map((e) => e.stage), ["ResponseComplete"]);
    assert.equal(req[0].level, "Request");
    assert.equal(req[0].requestObject.data.a, "b");
    assert.equal(req[0].responseObject, undefined);
    assert.deepEqual(req[0].objectRef, {
      resource: "configmaps",
      namespace: "req",
      name: "c1",
      apiVersion: "v1",
    });
    assert.deepEqual(req[0].responseStatus, { metadata: {}, code: 201 });
    assert.equal(req[0].userAgent, "audit-test/1.0");
    assert.ok(req[0].sourceIPs.includes("127.0.0.1"));
    assert.equal(req[0].annotations["authorization.k8s.io/decision"], "allow");
    assert.match(req[0].requestReceivedTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    // RequestResponse: both stages, both objects, no managed fields.
    const rr = eventsOf(events, "/namespaces/rr/configmaps", "create");
    assert.deepEqual(rr.map((e) => e.stage), ["RequestReceived", "ResponseComplete"]);
    assert.equal(rr[0].auditID, rr[1].auditID);
    assert.equal(rr[0].requestObject, undefined);
    assert.equal(rr[1].responseObject.metadata.name, "c1");
    assert.ok(rr[1].responseObject.metadata.uid);
    assert.equal(rr[1].responseObject.metadata.managedFields, undefined);
    const get = eventsOf(events, "/namespaces/rr/configmaps/c1", "get");
    assert.deepEqual(get.map((e) => e.auditID), ["my-audit-id", "my-audit-id"]);
    // A watch: RequestReceived, ResponseStarted when the stream opens, ResponseComplete at its end.
    const watch = eventsOf(events, "/namespaces/rr/configmaps?watch", "watch");
    assert.deepEqual(watch.map((e) => e.stage), [
      "RequestReceived",
      "ResponseStarted",
      "ResponseComplete",
    ]);
    // Impersonation denied: the authenticated user, the impersonated one, a 403 Status.
    const denied = events.filter((e) => e.responseStatus?.code === 403);
    assert.equal(denied.length, 1);
    assert.equal(denied[0].stage, "ResponseComplete");
    assert.equal(denied[0].responseStatus.reason, "Forbidden");
    assert.equal(denied[0].impersonatedUser.username, "nobody");
    assert.notEqual(denied[0].user.username, "nobody");
    assert.equal(denied[0].annotations["authorization.k8s.io/decision"], "forbid");
    // Admission's annotations (PodSecurity) join the event.
    const pod = eventsOf(events, "/namespaces/req/pods", "create")[0];
    assert.equal(pod.annotations["pod-security.kubernetes.io/enforce-policy"], "privileged:latest");
    // A failed authentication: one event at ResponseStarted, no user.
    const failed = events.filter((e) => e.responseStatus?.code === 401);
    assert.equal(failed.length, 1);
    assert.equal(failed[0].stage, "ResponseStarted");
    assert.equal(failed[0].user.username, "");
    assert.equal(failed[0].responseStatus.message, "Authentication failed, attempted: bearer");
    // Health paths: None.
    assert.equal(events.filter((e) => e.requestURI.startsWith("/readyz")).length, 0);
  });
});

Deno.test("audit: no Secret data and no token in the audit log or the server log", async () => {
  let token = "";
  await withAuditServer(async (ts) => {
    token = ts.server.adminToken;
    const secret = {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "s1" },
      data: { password: SECRET_B64 },
      stringData: { other: SECRET_VALUE },
    };
    assert.equal(
      (await json(ts, "POST", "/api/v1/namespaces/default/secrets", secret)).res.status,
      201,
    );
    await json(ts, "GET", "/api/v1/namespaces/default/secrets/s1");
    await json(ts, "GET", "/api/v1/namespaces/default/secrets");
    await json(ts, "PUT", "/api/v1/namespaces/default/secrets/s1", secret);
    const review = await json(ts, "POST", "/apis/authentication.k8s.io/v1/tokenreviews", {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenReview",
      spec: { token },
    });
    assert.equal(review.res.status, 201);
    assert.equal(review.body.status.authenticated, true);
    const tr = await json(
      ts,
      "POST",
      "/api/v1/namespaces/default/serviceaccounts/default/token",
      { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: {} },
    );
    if (tr.res.status === 201) token += "|" + tr.body.status.token;
  }, (events, raw, serverLog) => {
    const secrets = events.filter((e) => e.objectRef?.resource === "secrets");
    assert.ok(secrets.length >= 8, `${secrets.length} secret events`);
    for (const e of secrets) assert.equal(e.level, "Metadata");
    for (const log of [raw, serverLog]) {
      assert.ok(!log.includes(SECRET_VALUE), "secret value logged");
      assert.ok(!log.includes(SECRET_B64), "secret data logged");
      for (const t of token.split("|")) assert.ok(!log.includes(t), "a token is logged");
    }
    const reviews = events.filter((e) => e.objectRef?.resource === "tokenreviews");
    const done = reviews.find((e) => e.stage === "ResponseComplete")!;
    assert.equal(done.level, "RequestResponse");
    assert.equal(done.requestObject.kind, "TokenReview");
    assert.equal(done.requestObject.spec.token, undefined);
    assert.equal(done.responseObject.status.authenticated, true);
  });
});

Deno.test("a deprecated version: Warning header, k8s.io/deprecated, the metric, kubectl's Warning line", async () => {
  await withAuditServer(async (ts) => {
    const res = await ts.fetch("/api/v1/componentstatuses");
    assert.equal(res.status, 200);
    await res.body?.cancel();
    assert.equal(res.headers.get("warning"), '299 - "v1 ComponentStatus is deprecated in v1.19+"');
    const metrics = await (await ts.fetch("/metrics")).text();
    assert.match(
      metrics,
      /^apiserver_requested_deprecated_apis\{group="",removed_release="",resource="componentstatuses",subresource="",version="v1"\} 1$/m,
    );
    assert.match(
      metrics,
      /^apiserver_request_total\{[^}]*resource="componentstatuses"[^}]*\} 1$/m,
    );
    assert.doesNotMatch(metrics, /apiserver_requested_deprecated_apis\{[^}]*resource="configmaps"/);
    if (!KUBECTL) return console.log("kubectl not found: kubectl step skipped");
    const home = await Deno.makeTempDir();
    try {
      const r = await runKubectl({ kubeconfig: ts.server.kubeconfigPath, home }, ["get", "cs"]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /^Warning: v1 ComponentStatus is deprecated in v1\.19\+$/m);
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  }, (events) => {
    const cs = events.filter((e) => e.objectRef?.resource === "componentstatuses");
    assert.ok(cs.length >= 2);
    const done = cs.find((e) => e.stage === "ResponseComplete")!;
    assert.equal(done.annotations["k8s.io/deprecated"], "true");
    assert.equal(done.annotations["k8s.io/removed-release"], undefined);
  });
});
