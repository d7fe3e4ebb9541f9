/**
 * End to end: webhook authorizers against a fake SubjectAccessReview service, configured by
 * `--authorization-config` (ordered webhooks, match conditions, failure policies, caches) and
 * by `--authorization-mode=Webhook` with the `--authorization-webhook-*` flags.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { renderAdminKubeconfig } from "../../apiserver/pki/write_admin_kubeconfig.ts";
import { startSarWebhook } from "../support/test_sar_webhook.ts";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import { eventually } from "../support/eventually.ts";

const USERS = ["alice", "mallory", "bob", "skipme", "slow", "slow-deny", "flaky"];

async function writeFiles(dir: string, hook: { server: { port: number }; caPem: string }) {
  const kubeconfig = join(dir, "sar.kubeconfig");
  await Deno.writeTextFile(
    kubeconfig,
    renderAdminKubeconfig({
      server: `https://127.0.0.1:${hook.server.port}/authorize`,
      caPem: hook.caPem,
      userName: "apiserver",
    }),
  );
  const tokens = join(dir, "tokens.csv");
  await Deno.writeTextFile(tokens, USERS.map((u) => `token-${u},${u},${u}-uid`).join("\n") + "\n");
  return { kubeconfig, tokens };
}

async function status(s: TestServer, user: string): Promise<number> {
  const res = await s.fetch("/api/v1/namespaces/default/configmaps", {
    headers: { authorization: `Bearer token-${user}` },
  });
  await res.body?.cancel();
  return res.status;
}

/** Lets `users` read configmaps through RBAC. */
async function grantView(s: TestServer, users: string[]): Promise<void> {
  const res = await s.fetch("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name: "test-view" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "view" },
      subjects: users.map((name) => ({
        apiGroup: "rbac.authorization.k8s.io",
        kind: "User",
        name,
      })),
    }),
  });
  assert.equal(res.status, 201, await res.text());
}

Deno.test("--authorization-config: webhooks in order, match conditions, failure policies, caches", async (t) => {
  const hook = await startSarWebhook();
  const dir = await Deno.makeTempDir({ prefix: "apiserver-authz-" });
  const { kubeconfig, tokens } = await writeFiles(dir, hook);
  const webhook = (name: string, failurePolicy: string, condition: string) => ({
    type: "Webhook",
    name,
    webhook: {
      timeout: "1s",
      subjectAccessReviewVersion: "v1",
      matchConditionSubjectAccessReviewVersion: "v1",
      failurePolicy,
      connectionInfo: { type: "KubeConfigFile", kubeConfigFile: kubeconfig },
      matchConditions: [{ expression: condition }],
    },
  });
  const config = join(dir, "authz.yaml");
  await Deno.writeTextFile(
    config,
    JSON.stringify({
      apiVersion: "apiserver.config.k8s.io/v1",
      kind: "AuthorizationConfiguration",
      authorizers: [
        webhook("main", "NoOpinion", "request.user != 'skipme'"),
        webhook("strict", "Deny", "request.user == 'slow-deny'"),
        { type: "Node", name: "node" },
        { type: "RBAC", name: "rbac" },
      ],
    }),
  );
  const s = await startTestServer([
    `--authorization-config=${config}`,
    `--token-auth-file=${tokens}`,
  ], {
    dir,
  });
  try {
    await grantView(s, ["bob", "skipme", "slow", "slow-deny"]);
    await t.step("allow, deny, and no opinion falling through to RBAC", async () => {
      assert.equal(await status(s, "alice"), 200);
      assert.equal(await status(s, "mallory"), 403);
      assert.equal(await status(s, "bob"), 200);
      assert.equal(
        hook.seen.find((x) => x.user === "alice")?.apiVersion,
        "authorization.k8s.io/v1",
      );
    });
    await t.step("answers are cached (allowed and denied)", async () => {
      const before = hook.seen.length;
      assert.equal(await status(s, "alice"), 200);
      assert.equal(await status(s, "mallory"), 403);
      assert.equal(hook.seen.length, before);
    });
    await t.step("a false match condition skips the webhook", async () => {
      assert.equal(await status(s, "skipme"), 200);
      assert.ok(!hook.seen.some((x) => x.user === "skipme"));
    });
    await t.step(
      "a webhook failing twice with 500 is retried with backoff, then allows",
      async () => {
        assert.equal(await status(s, "flaky"), 200);
        assert.equal(hook.seen.filter((x) => x.user === "flaky").length, 3);
      },
    );
    await t.step("a timeout: NoOpinion moves on, Deny rejects", async () => {
      assert.equal(await status(s, "slow"), 200);
      assert.equal(await status(s, "slow-deny"), 403);
      const metrics = await (await s.fetch("/metrics")).text();
      for (
        const re of [
          /apiserver_authorization_webhook_evaluations_fail_open_total\{name="main",result="timeout"\} [1-9]/,
          /apiserver_authorization_webhook_evaluations_total\{name="main",result="success"\} [1-9]/,
          /apiserver_authorization_webhook_duration_seconds_count\{name="strict",result="timeout"\} 1/,
          /apiserver_authorization_match_condition_exclusions_total\{name="main",type="Webhook"\} [1-9]/,
          /apiserver_authorization_decisions_total\{decision="allowed",name="main",type="Webhook"\} [1-9]/,
          /apiserver_authorization_decisions_total\{decision="denied",name="strict",type="Webhook"\} 1/,
          /apiserver_authorization_decisions_total\{decision="allowed",name="rbac",type="RBAC"\} [1-9]/,
        ]
      ) assert.match(metrics, re);
    });
    await t.step("a changed file replaces the webhooks without restart", async () => {
      await Deno.writeTextFile(
        config,
        JSON.stringify({
          apiVersion: "apiserver.config.k8s.io/v1beta1",
          kind: "AuthorizationConfiguration",
          authorizers: [{ type: "RBAC", name: "rbac" }, { type: "Node", name: "node" }],
        }),
      );
      await eventually(
        "alice to lose the webhook's grant",
        async () => await status(s, "alice") === 403,
        {
          intervalMs: 200,
        },
      );
      const metrics = await (await s.fetch("/metrics")).text();
      assert.match(
        metrics,
        /apiserver_authorization_config_controller_automatic_reloads_total\{[^}]*status="success"\} [1-9]/,
      );
    });
    await t.step("adding a non-webhook authorizer on reload is refused", async () => {
      await Deno.writeTextFile(
        config,
        JSON.stringify({
          apiVersion: "apiserver.config.k8s.io/v1beta1",
          kind: "AuthorizationConfiguration",
          authorizers: [{ type: "AlwaysAllow", name: "allow" }, { type: "RBAC", name: "rbac" }, {
            type: "Node",
            name: "node",
          }],
        }),
      );
      await eventually(
        "a failed reload",
        async () =>
          /authorization_config_controller_automatic_reloads_total\{[^}]*status="failure"\} [1-9]/
            .test(await (await s.fetch("/metrics")).text()),
        { intervalMs: 200 },
      );
      assert.equal(await status(s, "alice"), 403);
    });
  } finally {
    await s.close();
    await hook.server.close();
  }
});

Deno.test("--authorization-mode=Webhook with the --authorization-webhook-* flags", async () => {
  const hook = await startSarWebhook();
  const dir = await Deno.makeTempDir({ prefix: "apiserver-authz-flags-" });
  const { kubeconfig, tokens } = await writeFiles(dir, hook);
  const s = await startTestServer([
    "--authorization-mode=Node,Webhook,RBAC",
    `--authorization-webhook-config-file=${kubeconfig}`,
    "--authorization-webhook-cache-authorized-ttl=1m",
    "--authorization-webhook-cache-unauthorized-ttl=0s",
    `--token-auth-file=${tokens}`,
  ], { dir });
  try {
    assert.equal(await status(s, "alice"), 200);
    assert.equal(await status(s, "alice"), 200);
    assert.equal(hook.seen.filter((x) => x.user === "alice").length, 1);
    assert.equal(hook.seen[0].apiVersion, "authorization.k8s.io/v1beta1");
    assert.equal(await status(s, "mallory"), 403);
    assert.equal(await status(s, "mallory"), 403);
    assert.equal(hook.seen.filter((x) => x.user === "mallory").length, 2, "0s: not cached");
    assert.equal(await status(s, "bob"), 403);
  } finally {
    await s.close();
    await hook.server.close();
  }
});
