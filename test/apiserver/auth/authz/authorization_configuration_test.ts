/** The AuthorizationConfiguration file's rules and messages, and its exclusions with flags. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parseAuthorizationConfiguration } from "../../../../apiserver/auth/authz/authorization_configuration.ts";
import { parseServerOptions } from "../../../../apiserver/options.ts";

const HEAD = "apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthorizationConfiguration\n";

function problems(body: string): string[] {
  const p = parseAuthorizationConfiguration(HEAD + body);
  return p.ok ? [] : p.errors;
}

Deno.test("parseAuthorizationConfiguration() applies kube's defaults", () => {
  const p = parseAuthorizationConfiguration(
    HEAD +
      "authorizers:\n- type: Webhook\n  name: hook\n  webhook:\n    timeout: 3s\n    subjectAccessReviewVersion: v1\n    failurePolicy: Deny\n    connectionInfo:\n      type: KubeConfigFile\n      kubeConfigFile: /etc/hostname\n- type: RBAC\n  name: rbac\n",
  );
  assert.ok(p.ok, p.ok ? "" : p.errors.join("\n"));
  if (!p.ok) return;
  const w = p.authorizers[0].webhook!;
  assert.equal(w.authorizedTTLMs, 300_000);
  assert.equal(w.unauthorizedTTLMs, 30_000);
  assert.equal(w.timeoutMs, 3000);
  assert.equal(p.authorizers[1].type, "RBAC");
});

Deno.test("parseAuthorizationConfiguration() reports every problem with kube's messages", () => {
  assert.deepEqual(problems("authorizers: []\n"), [
    "authorizers: Required value: at least one authorization mode must be defined",
  ]);
  const conditions = Array.from({ length: 65 }, (_, i) => `    - expression: "${i} > 0"`)
    .join("\n");
  const got = problems(
    `authorizers:
- type: Magic
  name: m
- type: RBAC
  name: Not_A_Name
- type: RBAC
  name: again
- type: Node
  name: n
  webhook: {}
- type: Webhook
  name: hook
- type: Webhook
  name: hook
  webhook:
    timeout: 31s
    subjectAccessReviewVersion: v2
    matchConditionSubjectAccessReviewVersion: v1beta1
    failurePolicy: Allow
    connectionInfo:
      type: InClusterConfig
- type: Webhook
  name: hook2
  webhook:
    connectionInfo:
      type: KubeConfigFile
      kubeConfigFile: relative.kubeconfig
    matchConditions:
${conditions}
- type: Webhook
  name: hook3
  webhook:
    timeout: 1s
    subjectAccessReviewVersion: v1
    matchConditionSubjectAccessReviewVersion: v1
    failurePolicy: Deny
    connectionInfo:
      type: KubeConfigFile
      kubeConfigFile: /nonexistent/kubeconfig
    matchConditions:
    - expression: "request.user"
    - expression: "request.("
    - expression: "  "
`,
  );
  const want = [
    'authorizers[0].type: Unsupported value: "Magic": supported values: "ABAC", "AlwaysAllow", "AlwaysDeny", "Node", "RBAC", "Webhook"',
    'authorizers[1].name: Invalid value: "Not_A_Name": authorizer name is invalid:',
    'authorizers[2].type: Duplicate value: "RBAC"',
    'authorizers[3].webhook: Invalid value: "non-null": may only be specified when type=Webhook',
    "authorizers[4].webhook: Required value: required when type=Webhook",
    'authorizers[5].name: Duplicate value: "hook"',
    'authorizers[5].webhook.timeout: Invalid value: "31s": must be > 0s and <= 30s',
    'authorizers[5].webhook.subjectAccessReviewVersion: Unsupported value: "v2": supported values: "v1", "v1beta1"',
    'authorizers[5].webhook.matchConditionSubjectAccessReviewVersion: Unsupported value: "v1beta1": supported values: "v1"',
    'authorizers[5].webhook.failurePolicy: Unsupported value: "Allow": supported values: "NoOpinion", "Deny"',
    'authorizers[5].webhook.connectionInfo.type: Invalid value: "InClusterConfig"',
    "authorizers[6].webhook.timeout: Required value",
    "authorizers[6].webhook.subjectAccessReviewVersion: Required value",
    "authorizers[6].webhook.matchConditionSubjectAccessReviewVersion: Required value: required if match conditions are specified",
    "authorizers[6].webhook.failurePolicy: Required value",
    'authorizers[6].webhook.connectionInfo.kubeConfigFile: Invalid value: "relative.kubeconfig": must be an absolute path',
    "authorizers[6].webhook.matchConditions: Too many: 65: must have at most 64 items",
    'authorizers[7].webhook.connectionInfo.kubeConfigFile: Invalid value: "/nonexistent/kubeconfig": error loading file',
    'authorizers[7].webhook.matchConditions[0].expression: Invalid value: "request.user": must evaluate to bool',
    'authorizers[7].webhook.matchConditions[1].expression: Invalid value: "request.(": compilation failed',
    "authorizers[7].webhook.matchConditions[2].expression: Required value",
  ];
  for (const w of want) {
    assert.ok(got.some((g) => g.startsWith(w)), `${w}\n  in ${got.join("\n  ")}`);
  }
});

Deno.test("--authorization-config excludes --authorization-mode and --authorization-webhook-*", async () => {
  const dir = await Deno.makeTempDir({ prefix: "authz-config-" });
  try {
    const file = join(dir, "authz.yaml");
    await Deno.writeTextFile(file, HEAD + "authorizers:\n- type: RBAC\n  name: rbac\n");
    const ok = parseServerOptions([`--authorization-config=${file}`]);
    assert.ok(ok.ok);
    if (ok.ok) assert.deepEqual(ok.options.authorization.modes, ["RBAC"]);
    const bad = parseServerOptions([
      `--authorization-config=${file}`,
      "--authorization-mode=RBAC",
      "--authorization-webhook-version=v1",
    ]);
    assert.ok(!bad.ok);
    if (!bad.ok) {
      assert.deepEqual(bad.errors, [
        "--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined",
      ]);
    }
    const flags = parseServerOptions(["--authorization-mode=Webhook"]);
    assert.ok(!flags.ok);
    if (!flags.ok) {
      assert.deepEqual(flags.errors, [
        "authorization-mode Webhook's authorization config file not passed",
      ]);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("parseAuthorizationConfiguration() reports the remaining rules of kube's table", async () => {
  const dir = await Deno.makeTempDir({ prefix: "authz-config-rules-" });
  try {
    const kubeconfig = join(dir, "hook.kubeconfig");
    await Deno.writeTextFile(kubeconfig, "{}");
    const webhook = (over: string) =>
      `  webhook:\n    timeout: 3s\n    subjectAccessReviewVersion: v1\n    failurePolicy: Deny\n${over}`;
    const got = problems(
      `authorizers:
- name: untyped
- type: RBAC
- type: Webhook
  name: negative
${
        webhook(`    authorizedTTL: -1s
    unauthorizedTTL: -2m
    connectionInfo:
      type: KubeConfigFile
      kubeConfigFile: ${kubeconfig}
`)
      }- type: Webhook
  name: negative-timeout
  webhook:
    timeout: -1s
    subjectAccessReviewVersion: v1
    failurePolicy: Deny
    connectionInfo: {}
- type: Webhook
  name: magic
${
        webhook(`    connectionInfo:
      type: Magic
`)
      }- type: Webhook
  name: no-file
${
        webhook(`    connectionInfo:
      type: KubeConfigFile
`)
      }- type: Webhook
  name: directory
${
        webhook(`    matchConditionSubjectAccessReviewVersion: v1
    connectionInfo:
      type: KubeConfigFile
      kubeConfigFile: ${dir}
    matchConditions:
    - expression: "request.user == 'a'"
    - expression: "request.user == 'a'"
`)
      }- type: Webhook
  name: bad-duration
${
        webhook(`    authorizedTTL: soon
    connectionInfo:
      type: KubeConfigFile
      kubeConfigFile: ${kubeconfig}
`)
      }`,
    );
    const want = [
      "authorizers[0].type: Required value",
      "authorizers[1].name: Required value",
      'authorizers[2].webhook.authorizedTTL: Invalid value: "-1s": must be > 0s',
      'authorizers[2].webhook.unauthorizedTTL: Invalid value: "-2m0s": must be > 0s',
      'authorizers[3].webhook.timeout: Invalid value: "-1s": must be > 0s and <= 30s',
      "authorizers[3].webhook.connectionInfo.type: Required value",
      'authorizers[4].webhook.connectionInfo.type: Unsupported value: "Magic": supported values: "InClusterConfig", "KubeConfigFile"',
      "authorizers[5].webhook.connectionInfo.kubeConfigFile: Required value",
      `authorizers[6].webhook.connectionInfo.kubeConfigFile: Invalid value: "${dir}": must be a regular file`,
      `authorizers[6].webhook.matchConditions[1].expression: Duplicate value: "request.user == 'a'"`,
      'authorizers[7].webhook.authorizedTTL: Invalid value: "soon": time: invalid duration "soon"',
    ];
    for (const w of want) {
      assert.ok(got.some((g) => g.startsWith(w)), `${w}\n  in ${got.join("\n  ")}`);
    }
    assert.equal(got.length, want.length, got.join("\n"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("parseAuthorizationConfiguration() defaults zero TTLs however they are written", () => {
  const p = parseAuthorizationConfiguration(
    HEAD +
      "authorizers:\n- type: Webhook\n  name: hook\n  webhook:\n    timeout: 3s\n    authorizedTTL: 0m\n    unauthorizedTTL: '0'\n    subjectAccessReviewVersion: v1\n    failurePolicy: Deny\n    connectionInfo:\n      type: KubeConfigFile\n      kubeConfigFile: /etc/hostname\n",
  );
  assert.ok(p.ok, p.ok ? "" : p.errors.join("\n"));
  if (!p.ok) return;
  assert.equal(p.authorizers[0].webhook!.authorizedTTLMs, 300_000);
  assert.equal(p.authorizers[0].webhook!.unauthorizedTTLMs, 30_000);
});
