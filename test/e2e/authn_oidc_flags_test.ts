/**
 * End to end: the `--oidc-*` flags with a test OpenID issuer (a distributed groups claim too),
 * `kubectl auth whoami` with an ID token in its kubeconfig, and anonymous requests limited to
 * configured paths.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { renderAdminKubeconfig } from "../../apiserver/pki/write_admin_kubeconfig.ts";
import { startTestServer } from "../support/test_server.ts";
import { startTestOidcIssuer } from "../support/test_oidc_issuer.ts";
import { kubectlOk, runKubectl, skipWithoutKubectl } from "../support/kubectl.ts";

Deno.test("--oidc-* flags: email usernames, groups with a prefix, required claims", async (t) => {
  const issuer = await startTestOidcIssuer();
  const dir = await Deno.makeTempDir({ prefix: "apiserver-oidc-" });
  const caFile = join(dir, "issuer-ca.pem");
  await Deno.writeTextFile(caFile, issuer.caPem);
  const s = await startTestServer([
    `--oidc-issuer-url=${issuer.url}`,
    "--oidc-client-id=kubectl",
    `--oidc-ca-file=${caFile}`,
    "--oidc-username-claim=email",
    "--oidc-groups-claim=roles",
    "--oidc-groups-prefix=oidc:",
    "--oidc-required-claim=hd=example.com",
  ], { dir });
  const claims = {
    sub: "1234",
    aud: "kubectl",
    email: "alice@example.com",
    email_verified: true,
    hd: "example.com",
    roles: "admin",
  };
  const status = async (token: string) => {
    const res = await s.fetch("/api/v1/namespaces/default", {
      headers: { authorization: `Bearer ${token}` },
    });
    await res.body?.cancel();
    return res.status;
  };
  try {
    await t.step("a verified email authenticates (403: no role grants it anything)", async () => {
      assert.equal(await status(await issuer.sign(claims)), 403);
    });
    await t.step(
      "an unverified email, a missing required claim, a wrong audience: 401",
      async () => {
        assert.equal(await status(await issuer.sign({ ...claims, email_verified: false })), 401);
        assert.equal(await status(await issuer.sign({ ...claims, hd: "other.com" })), 401);
        assert.equal(await status(await issuer.sign({ ...claims, aud: "x" })), 401);
      },
    );
    await t.step("a distributed roles claim is fetched from its claim source", async () => {
      issuer.serveClaims("/claims/bob", { aud: "kubectl", roles: ["dev", "ops"] });
      const { roles: _, ...rest } = claims;
      const token = await issuer.sign({
        ...rest,
        email: "bob@example.com",
        _claim_names: { roles: "src1" },
        _claim_sources: { src1: { endpoint: `${issuer.url}/claims/bob`, access_token: "at-1" } },
      });
      const res = await s.fetch("/apis/authentication.k8s.io/v1/selfsubjectreviews", {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" }),
      });
      const info = (await res.json()).status?.userInfo;
      assert.equal(res.status, 201);
      assert.equal(info.username, "bob@example.com");
      assert.deepEqual(info.groups, ["oidc:dev", "oidc:ops", "system:authenticated"]);
      assert.deepEqual(issuer.claimRequests().at(-1), {
        path: "/claims/bob",
        authorization: "Bearer at-1",
      });
    });
    await t.step({
      name: "kubectl auth whoami shows the mapped identity",
      ignore: skipWithoutKubectl("kubectl auth whoami with an ID token"),
      fn: async () => {
        const kubeconfig = join(dir, "oidc.kubeconfig");
        await Deno.writeTextFile(
          kubeconfig,
          renderAdminKubeconfig({
            server: s.server.url,
            caPem: s.server.caPem,
            userName: "alice",
            token: await issuer.sign(claims),
          }),
        );
        const out = kubectlOk(
          await runKubectl({ kubeconfig, home: dir }, ["auth", "whoami", "-o", "json"]),
        );
        const info = JSON.parse(out).status.userInfo;
        assert.equal(info.username, "alice@example.com");
        assert.deepEqual(info.groups, ["oidc:admin", "system:authenticated"]);
        const table = kubectlOk(await runKubectl({ kubeconfig, home: dir }, ["auth", "whoami"]));
        assert.match(table, /Username\s+alice@example\.com/);
      },
    });
  } finally {
    await s.close();
    await issuer.close();
  }
});

Deno.test("anonymous.conditions: anonymous requests only on the listed paths", async () => {
  const dir = await Deno.makeTempDir({ prefix: "apiserver-anon-" });
  const file = join(dir, "authn.yaml");
  await Deno.writeTextFile(
    file,
    "apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthenticationConfiguration\nanonymous:\n  enabled: true\n  conditions:\n  - path: /livez\n",
  );
  const s = await startTestServer([
    `--authentication-config=${file}`,
    "--feature-gates=AnonymousAuthConfigurableEndpoints=true",
  ], { dir });
  try {
    const livez = await s.fetch("/livez", { auth: false });
    await livez.body?.cancel();
    assert.equal(livez.status, 200);
    const version = await s.fetch("/version", { auth: false });
    await version.body?.cancel();
    assert.equal(version.status, 401);
  } finally {
    await s.close();
  }
});
