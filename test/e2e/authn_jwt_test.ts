/**
 * End to end: `--authentication-config` with a test OpenID issuer (its own CA, discovery and
 * keys it rotates): ID tokens authenticate with the mapped identity, bad ones are 401, a
 * rotated key is picked up, and a changed file takes effect without a restart.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import { startTestOidcIssuer, type TestOidcIssuer } from "../support/test_oidc_issuer.ts";
import { eventually } from "../support/eventually.ts";

function configYaml(issuer: TestOidcIssuer, usernamePrefix: string): string {
  return JSON.stringify({
    apiVersion: "apiserver.config.k8s.io/v1beta1",
    kind: "AuthenticationConfiguration",
    jwt: [{
      issuer: {
        url: issuer.url,
        certificateAuthority: issuer.caPem,
        audiences: ["test-client", "other-client"],
        audienceMatchPolicy: "MatchAny",
      },
      claimValidationRules: [
        { claim: "tenant", requiredValue: "acme" },
        { expression: "claims.level > 1", message: "level too low" },
      ],
      claimMappings: {
        username: { claim: "sub", prefix: usernamePrefix },
        groups: { expression: '(has(claims.groups) ? claims.groups : []).map(g, "oidc:" + g)' },
        uid: { expression: '"uid-" + claims.sub' },
        extra: [{ key: "example.com/team", valueExpression: "claims.team" }],
      },
      userValidationRules: [{
        expression: "!user.username.endsWith(':mallory')",
        message: "mallory may not log in",
      }],
    }],
  });
}

/** The identity a SelfSubjectReview reports. */
interface UserInfo {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

async function whoami(s: TestServer, token: string): Promise<{ status: number; user?: UserInfo }> {
  const res = await s.fetch("/apis/authentication.k8s.io/v1/selfsubjectreviews", {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" }),
  });
  const body = await res.json();
  return { status: res.status, user: body.status?.userInfo };
}

const GOOD = { sub: "alice", aud: "test-client", tenant: "acme", level: 2, team: "blue" };

Deno.test("--authentication-config: JWT authentication with a test issuer", async (t) => {
  const issuer = await startTestOidcIssuer();
  const dir = await Deno.makeTempDir({ prefix: "apiserver-jwt-" });
  const file = join(dir, "authn.yaml");
  await Deno.writeTextFile(file, configYaml(issuer, "oidc:"));
  const s = await startTestServer([`--authentication-config=${file}`], {
    dir,
    optionsHook: (o) => {
      o.authentication.jwt.tuning = { refreshCooldownMs: 0, discoveryRetryMs: 200 };
      o.authentication.jwt.reloadIntervalMs = 500;
    },
  });
  try {
    await t.step("a valid ID token authenticates with the mapped identity", async () => {
      const r = await whoami(s, await issuer.sign({ ...GOOD, groups: ["dev", "ops"] }));
      assert.equal(r.status, 201);
      assert.equal(r.user?.username, "oidc:alice");
      assert.equal(r.user?.uid, "uid-alice");
      assert.deepEqual(r.user?.groups, ["oidc:dev", "oidc:ops", "system:authenticated"]);
      assert.deepEqual(r.user?.extra, { "example.com/team": ["blue"] });
    });
    await t.step("any of the audiences matches", async () => {
      const r = await whoami(s, await issuer.sign({ ...GOOD, aud: ["x", "other-client"] }));
      assert.equal(r.status, 201);
    });
    await t.step("bad tokens are 401", async () => {
      const now = Math.floor(Date.now() / 1000);
      const cases: [string, string][] = [
        ["wrong iss", await issuer.sign({ ...GOOD, iss: "https://elsewhere.example" })],
        ["wrong aud", await issuer.sign({ ...GOOD, aud: "someone-else" })],
        ["nbf in 5 min", await issuer.sign({ ...GOOD, nbf: now + 300 })],
        ["expired", await issuer.sign({ ...GOOD, iat: now - 7200, exp: now - 3600 })],
        ["bad signature", await issuer.sign(GOOD, { key: await issuer.strangerKey() })],
        ["missing required claim", await issuer.sign({ ...GOOD, tenant: "other" })],
        ["failing claim rule", await issuer.sign({ ...GOOD, level: 1 })],
        ["failing user rule", await issuer.sign({ ...GOOD, sub: "mallory" })],
        ["no exp", await issuer.sign({ ...GOOD, exp: undefined })],
      ];
      for (const [what, token] of cases) {
        assert.equal((await whoami(s, token)).status, 401, what);
      }
    });
    await t.step("a token of an unknown issuer is 401", async () => {
      const other = await startTestOidcIssuer();
      try {
        assert.equal((await whoami(s, await other.sign(GOOD))).status, 401);
      } finally {
        await other.close();
      }
    });
    await t.step("a rotated key is picked up", async () => {
      const before = issuer.jwksFetches();
      await issuer.rotate();
      const r = await whoami(s, await issuer.sign({ ...GOOD, sub: "bob" }));
      assert.equal(r.status, 201);
      assert.equal(r.user?.username, "oidc:bob");
      assert.ok(issuer.jwksFetches() > before);
    });
    await t.step("a changed file takes effect without restart; the metric moves", async () => {
      await Deno.writeTextFile(file, configYaml(issuer, "corp:"));
      const token = await issuer.sign({ ...GOOD, sub: "carol" });
      await eventually(
        "the new username prefix",
        async () => (await whoami(s, token)).user?.username === "corp:carol",
        { intervalMs: 200 },
      );
      const metrics = await (await s.fetch("/metrics")).text();
      assert.match(
        metrics,
        /apiserver_authentication_config_controller_automatic_reloads_total\{apiserver_id_hash="sha256:[0-9a-f]+",status="success"\} [1-9]/,
      );
      assert.match(
        metrics,
        /apiserver_authentication_config_controller_automatic_reload_last_timestamp_seconds\{[^}]*status="success"\} \d/,
      );
    });
    await t.step("an invalid file is ignored and counted as a failure", async () => {
      await Deno.writeTextFile(file, configYaml(issuer, "corp:").replace("https://", "http://"));
      await eventually(
        "a failed reload",
        async () =>
          /automatic_reloads_total\{[^}]*status="failure"\} [1-9]/.test(
            await (await s.fetch("/metrics")).text(),
          ),
        { intervalMs: 200 },
      );
      const r = await whoami(s, await issuer.sign({ ...GOOD, sub: "dave" }));
      assert.equal(r.user?.username, "corp:dave");
    });
  } finally {
    await s.close();
    await issuer.close();
  }
});
