/** Claims to users as Kubernetes' JWT authenticator maps them. */
import assert from "node:assert/strict";
import { mapClaims } from "../../../../apiserver/auth/authn/jwt_claim_mapping.ts";
import type { JwtAuthenticatorConfig } from "../../../../apiserver/auth/authn/authentication_configuration.ts";
import { validateAuthenticationConfiguration } from "../../../../apiserver/auth/authn/validate_authentication_configuration.ts";

function compiled(over: Partial<JwtAuthenticatorConfig>) {
  const v = validateAuthenticationConfiguration({
    jwt: [{
      issuer: { url: "https://issuer.example", audiences: ["a"] },
      claimValidationRules: [],
      claimMappings: { username: { claim: "sub", prefix: "" }, groups: {}, uid: {}, extra: [] },
      userValidationRules: [],
      ...over,
    }],
  }, { disallowedIssuers: [], anonymousConfigurable: false });
  assert.deepEqual(v.errors, []);
  return v.authenticators[0];
}

Deno.test("mapClaims() maps claims with prefixes; a string groups claim is one group", () => {
  const a = compiled({
    claimMappings: {
      username: { claim: "sub", prefix: "p:" },
      groups: { claim: "groups", prefix: "g:" },
      uid: { claim: "id" },
      extra: [],
    },
  });
  assert.deepEqual(mapClaims(a, { sub: "x", groups: "admins", id: "7" }), {
    ok: true,
    user: { username: "p:x", groups: ["g:admins"], uid: "7" },
  });
  const missingUid = mapClaims(a, { sub: "x" });
  assert.ok(!missingUid.ok);
});

Deno.test("mapClaims() checks email_verified for the email claim", () => {
  const a = compiled({
    claimMappings: { username: { claim: "email", prefix: "" }, groups: {}, uid: {}, extra: [] },
  });
  assert.ok(mapClaims(a, { email: "a@b" }).ok);
  assert.ok(mapClaims(a, { email: "a@b", email_verified: true }).ok);
  assert.deepEqual(mapClaims(a, { email: "a@b", email_verified: false }), {
    ok: false,
    reason: "oidc: email not verified",
  });
});

Deno.test("mapClaims() evaluates expressions: lists, empty values dropped, wrong types refused", () => {
  const a = compiled({
    claimMappings: {
      username: { expression: "claims.sub" },
      groups: { expression: "claims.roles" },
      uid: {},
      extra: [
        { key: "example.com/a", valueExpression: "['x', '']" },
        { key: "example.com/b", valueExpression: "''" },
      ],
    },
    claimValidationRules: [{ expression: "claims.n >= 2", message: "n too small" }],
  });
  assert.deepEqual(mapClaims(a, { sub: "s", roles: ["r1", ""], n: 2 }), {
    ok: true,
    user: { username: "s", groups: ["r1"], extra: { "example.com/a": ["x"] } },
  });
  const small = mapClaims(a, { sub: "s", roles: [], n: 1 });
  assert.ok(
    !small.ok && small.reason.includes("validation expression 'claims.n >= 2' failed: n too small"),
  );
  const badGroups = mapClaims(a, { sub: "s", roles: [1], n: 3 });
  assert.ok(
    !badGroups.ok && badGroups.reason.includes("must return a string or a list of strings"),
  );
  const emptyName = mapClaims(a, { sub: "", roles: [], n: 3 });
  assert.deepEqual(emptyName, {
    ok: false,
    reason: "oidc: empty username via CEL expression is not allowed",
  });
});
