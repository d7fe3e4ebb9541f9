/**
 * JwtAuthenticatorSet against a test OpenID issuer: go-oidc's time checks (nbf with a minute of
 * leeway, exp without, iat) and distributed groups claims fetched from a claim source.
 */
import assert from "node:assert/strict";
import { JwtAuthenticatorSet } from "../../../../apiserver/auth/authn/jwt_authenticator.ts";
import type { JwtAuthenticatorConfig } from "../../../../apiserver/auth/authn/authentication_configuration.ts";
import { validateAuthenticationConfiguration } from "../../../../apiserver/auth/authn/validate_authentication_configuration.ts";
import type { AuthResult } from "../../../../apiserver/auth/authn/authenticator.ts";
import { startTestOidcIssuer, type TestOidcIssuer } from "../../../support/test_oidc_issuer.ts";

function authenticatorFor(
  issuer: TestOidcIssuer,
  groups: JwtAuthenticatorConfig["claimMappings"]["groups"],
) {
  const v = validateAuthenticationConfiguration({
    jwt: [{
      issuer: { url: issuer.url, certificateAuthority: issuer.caPem, audiences: ["client"] },
      claimValidationRules: [],
      claimMappings: { username: { claim: "sub", prefix: "oidc:" }, groups, uid: {}, extra: [] },
      userValidationRules: [],
    }],
  }, { disallowedIssuers: [], anonymousConfigurable: false });
  assert.deepEqual(v.errors, []);
  return new JwtAuthenticatorSet(v.authenticators, {
    tuning: { discoveryRetryMs: 100, timeoutMs: 10_000 },
  }).start();
}

const bearer = (t: string) =>
  new Request("https://x/", { headers: { authorization: `Bearer ${t}` } });

function reason(r: AuthResult): string {
  assert.equal(r.kind, "invalid", JSON.stringify(r));
  return r.kind === "invalid" ? r.reason : "";
}

Deno.test("JwtAuthenticatorSet.authenticate() checks nbf with a minute of leeway, exp without, iat's type", async (t) => {
  const issuer = await startTestOidcIssuer();
  const authn = authenticatorFor(issuer, {});
  const now = Math.floor(Date.now() / 1000);
  const token = (claims: Record<string, unknown>) =>
    issuer.sign({ sub: "alice", aud: "client", ...claims });
  try {
    assert.deepEqual(await authn.waitReady(20_000), []);
    await t.step("nbf 20 s ahead is within the leeway", async () => {
      const r = await authn.authenticate(bearer(await token({ nbf: now + 20 })));
      assert.equal(r.kind, "user", JSON.stringify(r));
    });
    await t.step("nbf 5 min ahead is not valid yet", async () => {
      const r = await authn.authenticate(bearer(await token({ nbf: now + 300 })));
      assert.match(
        reason(r),
        /^oidc: verify token: oidc: current time before the nbf \(not before\) time: /,
      );
    });
    await t.step("an exp 5 s ago has no leeway", async () => {
      const r = await authn.authenticate(bearer(await token({ exp: now - 5 })));
      assert.equal(reason(r), "oidc: verify token: oidc: token is expired");
    });
    await t.step("an iat in the future is accepted, a non-numeric one is not", async () => {
      const ok = await authn.authenticate(bearer(await token({ sub: "bob", iat: now + 600 })));
      assert.equal(ok.kind, "user", JSON.stringify(ok));
      const bad = await authn.authenticate(bearer(await token({ sub: "carol", iat: "yesterday" })));
      assert.match(reason(bad), /iat/);
    });
  } finally {
    authn.close();
    await issuer.close();
  }
});

Deno.test("JwtAuthenticatorSet.authenticate() resolves a distributed groups claim", async (t) => {
  const issuer = await startTestOidcIssuer();
  const authn = authenticatorFor(issuer, { claim: "groups", prefix: "g:" });
  const distributed = (src: string, sources: Record<string, unknown>) =>
    issuer.sign({
      sub: "alice",
      aud: "client",
      _claim_names: { groups: src },
      _claim_sources: sources,
    });
  try {
    assert.deepEqual(await authn.waitReady(20_000), []);
    issuer.serveClaims("/claims/alice", { aud: "client", groups: ["dev", "ops"] });
    issuer.serveClaims("/claims/nogroups", { aud: "client", team: "x" });
    issuer.serveClaims("/claims/otheraud", { aud: "elsewhere", groups: ["dev"] });
    issuer.serveClaims("/claims/unreachable", {
      iss: "https://127.0.0.1:9",
      aud: "client",
      groups: ["dev"],
    });
    await t.step(
      "the claim source's groups are the user's, fetched with its access token",
      async () => {
        const r = await authn.authenticate(bearer(
          await distributed("src1", {
            src1: { endpoint: `${issuer.url}/claims/alice`, access_token: "source-token" },
          }),
        ));
        assert.equal(r.kind, "user", JSON.stringify(r));
        if (r.kind === "user") assert.deepEqual(r.user.groups, ["g:dev", "g:ops"]);
        assert.deepEqual(issuer.claimRequests().at(-1), {
          path: "/claims/alice",
          authorization: "Bearer source-token",
        });
      },
    );
    await t.step("a groups claim in the token itself wins; no source is asked", async () => {
      const before = issuer.claimRequests().length;
      const r = await authn.authenticate(bearer(
        await issuer.sign({
          sub: "bob",
          aud: "client",
          groups: ["own"],
          _claim_names: { groups: "src1" },
          _claim_sources: { src1: { endpoint: `${issuer.url}/claims/alice` } },
        }),
      ));
      if (r.kind === "user") assert.deepEqual(r.user.groups, ["g:own"]);
      assert.equal(issuer.claimRequests().length, before);
    });
    const cases: [string, string, Record<string, unknown>, RegExp][] = [
      [
        "a source missing from _claim_sources",
        "src2",
        { src1: {} },
        /contained a source src2 missing in _claims_sources/,
      ],
      [
        "an endpoint answering 404",
        "s",
        { s: { endpoint: `${issuer.url}/claims/none` } },
        /error while getting distributed claim JWT: 404/,
      ],
      [
        "a claim JWT without the claim",
        "s",
        { s: { endpoint: `${issuer.url}/claims/nogroups` } },
        /did not contain claim: groups/,
      ],
      [
        "a claim JWT of an issuer that cannot be discovered",
        "s",
        { s: { endpoint: `${issuer.url}/claims/unreachable` } },
        /verifier not initialized for issuer: "https:\/\/127\.0\.0\.1:9"/,
      ],
      ["a claim JWT for another audience", "s", {
        s: { endpoint: `${issuer.url}/claims/otheraud` },
      }, /verify distributed claim token: oidc: aud claim check failed/],
    ];
    for (const [name, src, sources, want] of cases) {
      await t.step(`${name} is a 401`, async () => {
        const r = await authn.authenticate(bearer(await distributed(src, sources)));
        const why = reason(r);
        assert.match(why, /^oidc: could not expand distributed claims: /);
        assert.match(why, want);
        assert.doesNotMatch(why, /source-token/);
      });
    }
    await t.step("an aggregated claim (no endpoint) is ignored", async () => {
      const r = await authn.authenticate(bearer(await distributed("s", { s: { JWT: "x.y.z" } })));
      assert.equal(r.kind, "user", JSON.stringify(r));
      if (r.kind === "user") assert.deepEqual(r.user.groups, []);
    });
  } finally {
    authn.close();
    await issuer.close();
  }
});
