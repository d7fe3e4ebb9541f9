/** OIDC discovery and key fetching against a test issuer. */
import assert from "node:assert/strict";
import { jwtVerify } from "jose";
import { OidcKeySet } from "../../../../apiserver/auth/authn/oidc_key_set.ts";
import { startTestOidcIssuer } from "../../../support/test_oidc_issuer.ts";

Deno.test("OidcKeySet discovers keys (also through discoveryURL) and refetches for a new kid", async () => {
  const issuer = await startTestOidcIssuer();
  const keys = new OidcKeySet({
    issuerURL: issuer.url,
    discoveryURL: `${issuer.url}/.well-known/openid-configuration`,
    certificateAuthority: issuer.caPem,
    tuning: { refreshCooldownMs: 0 },
  });
  try {
    assert.equal(await keys.waitReady(30_000), true);
    const token = await issuer.sign({ sub: "a" });
    await jwtVerify(token, await keys.getKey(), { issuer: issuer.url });
    await issuer.rotate();
    const fetches = issuer.jwksFetches();
    await jwtVerify(await issuer.sign({ sub: "b" }), await keys.getKey(), { issuer: issuer.url });
    assert.ok(issuer.jwksFetches() > fetches);
  } finally {
    keys.close();
    await issuer.close();
  }
});

Deno.test("OidcKeySet refuses a discovery document naming another issuer", async () => {
  const issuer = await startTestOidcIssuer();
  const errors: string[] = [];
  const keys = new OidcKeySet({
    issuerURL: `${issuer.url}/other`,
    discoveryURL: `${issuer.url}/.well-known/openid-configuration`,
    certificateAuthority: issuer.caPem,
    tuning: { discoveryRetryMs: 60_000 },
    onError: (m) => errors.push(m),
  });
  try {
    assert.equal(await keys.waitReady(30_000), false);
    assert.match(errors[0], /issuer did not match the issuer returned by provider/);
    await assert.rejects(keys.getKey(), /oidc: authenticator not initialized/);
  } finally {
    keys.close();
    await issuer.close();
  }
});

Deno.test("OidcKeySet does not trust an issuer whose CA it was not given", async () => {
  const issuer = await startTestOidcIssuer();
  const keys = new OidcKeySet({ issuerURL: issuer.url, tuning: { discoveryRetryMs: 60_000 } });
  try {
    assert.equal(await keys.waitReady(30_000), false);
  } finally {
    keys.close();
    await issuer.close();
  }
});
