/** The webhook authorizer retries transient failures with kube's backoff, then follows its policy. */
import assert from "node:assert/strict";
import { MetricsRegistry } from "../../../../apiserver/metrics/mod.ts";
import {
  WebhookAuthorizer,
  webhookAuthorizerMetrics,
} from "../../../../apiserver/auth/authz/webhook_authorizer.ts";
import type { AuthzAttributes } from "../../../../apiserver/auth/authz/authorizer.ts";
import { authorizationMatchEnvironment } from "../../../../apiserver/cel/mod.ts";
import { serveHttps } from "../../../../shared/http/https_server.ts";
import { servingPki } from "../../../support/test_pki.ts";

/** A SubjectAccessReview webhook (an external system) that fails `failures` times, then allows. */
async function flakyWebhook(failures: number, status = 500, retryAfter?: string) {
  const { ca, serving } = await servingPki();
  let calls = 0;
  const server = await serveHttps(async (req) => {
    const review = await req.json();
    if (++calls <= failures) {
      const headers: Record<string, string> = retryAfter ? { "retry-after": retryAfter } : {};
      return new Response("try later", { status, headers });
    }
    return Response.json({
      apiVersion: review.apiVersion,
      kind: "SubjectAccessReview",
      status: { allowed: true, reason: "at last" },
    });
  }, {
    hostname: "127.0.0.1",
    port: 0,
    certPem: serving.certPem,
    keyPem: serving.keyPem,
    requestClientCert: false,
    onError: () => {},
    onWarning: () => {},
  });
  return { server, caPem: ca.certPem, calls: () => calls };
}

const ATTRS: AuthzAttributes = {
  user: { username: "alice", groups: [] },
  verb: "get",
  isResourceRequest: true,
  namespace: "default",
  apiGroup: "",
  apiVersion: "v1",
  resource: "pods",
  subresource: "",
  name: "p",
  path: "/api/v1/namespaces/default/pods/p",
};

function authorizer(
  hook: { server: { port: number }; caPem: string },
  failurePolicy: "NoOpinion" | "Deny",
) {
  const pauses: number[] = [];
  const a = new WebhookAuthorizer({
    name: "flaky",
    config: { server: `https://127.0.0.1:${hook.server.port}/authorize`, caPem: hook.caPem },
    subjectAccessReviewVersion: "v1",
    authorizedTTLMs: 60_000,
    unauthorizedTTLMs: 1_000,
    failurePolicy,
    retryClock: { sleep: (ms) => (pauses.push(ms), Promise.resolve()), random: () => 0 },
  });
  return { a, pauses };
}

Deno.test("WebhookAuthorizer.authorize() retries a webhook that fails, then succeeds", async () => {
  const hook = await flakyWebhook(2);
  const { a, pauses } = authorizer(hook, "Deny");
  try {
    const d = await a.authorize(ATTRS);
    assert.deepEqual(d, { decision: "allow", reason: "at last" });
    assert.equal(hook.calls(), 3);
    assert.equal(a.calls, 3);
    assert.deepEqual(pauses, [500, 750]);
  } finally {
    a.close();
    await hook.server.close();
  }
});

Deno.test("WebhookAuthorizer.authorize() gives up after 5 attempts and follows the failure policy", async () => {
  for (const policy of ["Deny", "NoOpinion"] as const) {
    const hook = await flakyWebhook(100, 429, "1");
    const { a, pauses } = authorizer(hook, policy);
    try {
      const d = await a.authorize(ATTRS);
      assert.equal(d.decision, policy === "Deny" ? "deny" : "noOpinion");
      assert.match(d.reason, /error contacting webhook: the webhook answered HTTP 429/);
      assert.equal(hook.calls(), 5);
      assert.deepEqual(pauses, [500, 750, 1125, 1687.5]);
    } finally {
      a.close();
      await hook.server.close();
    }
  }
});

Deno.test("WebhookAuthorizer.authorize() does not retry a 4xx answer", async () => {
  const hook = await flakyWebhook(100, 403);
  const { a, pauses } = authorizer(hook, "NoOpinion");
  try {
    assert.equal((await a.authorize(ATTRS)).decision, "noOpinion");
    assert.equal(hook.calls(), 1);
    assert.deepEqual(pauses, []);
  } finally {
    a.close();
    await hook.server.close();
  }
});

Deno.test("WebhookAuthorizer.authorize() follows the spec's matching logic with errors", async () => {
  const hook = await flakyWebhook(0);
  const env = authorizationMatchEnvironment();
  const compile = (e: string) => {
    const c = env.compile(e);
    if (!c.ok) throw new Error(c.errors.map((x) => x.detail).join("; "));
    return c.program;
  };
  // A non-resource request has no resourceAttributes: selecting them is an evaluation error.
  const failing = compile("request.resourceAttributes.namespace == 'default'");
  const nonResource: AuthzAttributes = {
    ...ATTRS,
    isResourceRequest: false,
    path: "/healthz",
    resource: "",
  };
  const registry = new MetricsRegistry();
  const metrics = webhookAuthorizerMetrics(registry);
  const make = (failurePolicy: "NoOpinion" | "Deny", conditions: string[]) =>
    new WebhookAuthorizer({
      name: "gate",
      metrics,
      config: { server: `https://127.0.0.1:${hook.server.port}/authorize`, caPem: hook.caPem },
      subjectAccessReviewVersion: "v1",
      authorizedTTLMs: 0,
      unauthorizedTTLMs: 0,
      failurePolicy,
      matchConditions: [failing, ...conditions.map(compile)],
      matchEnv: env,
    });
  const cases: [string, "NoOpinion" | "Deny", string[], string][] = [
    ["an error and none false, Deny: rejected", "Deny", ["true"], "deny"],
    ["an error and none false, NoOpinion: skipped", "NoOpinion", ["true"], "noOpinion"],
    ["an error but one false: skipped, even with Deny", "Deny", ["false"], "noOpinion"],
  ];
  try {
    for (const [what, policy, conditions, want] of cases) {
      const a = make(policy, conditions);
      try {
        const d = await a.authorize(nonResource);
        assert.equal(d.decision, want, what);
        assert.equal(a.calls, 0, what);
      } finally {
        a.close();
      }
    }
    const a = make("Deny", ["true"]);
    try {
      assert.equal((await a.authorize(ATTRS)).decision, "allow", "no error: the webhook is asked");
      assert.equal(a.calls, 1);
    } finally {
      a.close();
    }
    const text = await registry.exposition();
    for (
      const line of [
        'apiserver_authorization_match_condition_evaluation_errors_total{name="gate",type="Webhook"} 2',
        'apiserver_authorization_match_condition_exclusions_total{name="gate",type="Webhook"} 1',
        'apiserver_authorization_match_condition_evaluation_seconds_count{name="gate",type="Webhook"} 4',
      ]
    ) assert.ok(text.includes(line), `${line}\n${text}`);
  } finally {
    await hook.server.close();
  }
});
