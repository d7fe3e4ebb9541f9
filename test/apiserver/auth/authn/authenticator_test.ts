import assert from "node:assert/strict";
import {
  type Authenticator,
  AuthenticatorChain,
  type AuthResult,
  bearerToken,
  constantTimeEqual,
} from "../../../../apiserver/auth/authn/authenticator.ts";
import {
  AnonymousAuthenticator,
  RejectUnknownBearer,
  StaticTokenAuthenticator,
} from "../../../../apiserver/auth/authn/static_token.ts";

const conn = { peerCertificates: [] };
const req = (token?: string) =>
  new Request("https://x/", token ? { headers: { authorization: `Bearer ${token}` } } : {});

/** An authenticator that always answers the same (an external stand-in, not one of ours). */
const fixed = (name: string, r: AuthResult): Authenticator => ({
  name,
  authenticate: () => Promise.resolve(r),
});

Deno.test("AuthenticatorChain.authenticate() lets the first success decide", async (t) => {
  const tokens = new StaticTokenAuthenticator([
    { token: "good", user: { username: "alice", groups: ["dev"] } },
  ]);
  const chain = new AuthenticatorChain([
    tokens,
    new RejectUnknownBearer(),
    new AnonymousAuthenticator(),
  ]);
  await t.step("a known token authenticates and gets system:authenticated", async () => {
    const r = await chain.authenticate(req("good"), conn);
    assert.equal(r.kind, "user");
    if (r.kind === "user") {
      assert.equal(r.user.username, "alice");
      assert.deepEqual(r.user.groups, ["dev", "system:authenticated"]);
    }
  });
  await t.step("an unknown token is invalid, never anonymous", async () => {
    const r = await chain.authenticate(req("bad"), conn);
    assert.equal(r.kind, "invalid");
  });
  await t.step("no credential is anonymous without system:authenticated", async () => {
    const r = await chain.authenticate(req(), conn);
    assert.equal(r.kind, "user");
    if (r.kind === "user") {
      assert.equal(r.user.username, "system:anonymous");
      assert.deepEqual(r.user.groups, ["system:unauthenticated"]);
    }
  });
  await t.step("an invalid credential does not spoil a later success", async () => {
    const c = new AuthenticatorChain([
      fixed("x509", { kind: "invalid", method: "x509", reason: "bad cert" }),
      tokens,
      new AnonymousAuthenticator(),
    ]);
    const ok = await c.authenticate(req("good"), conn);
    assert.equal(ok.kind, "user");
    const bad = await c.authenticate(req(), conn);
    assert.deepEqual(bad, { kind: "invalid", method: "x509", reason: "bad cert" });
  });
  await t.step("nothing recognised without anonymous is none", async () => {
    const c = new AuthenticatorChain([tokens, new RejectUnknownBearer()]);
    assert.deepEqual(await c.authenticate(req(), conn), { kind: "none" });
  });
});

Deno.test("bearerToken() reads the Authorization header", async (t) => {
  const cases: [string | null, string | undefined][] = [
    ["Bearer abc", "abc"],
    ["bearer abc ", "abc"],
    ["Basic abc", undefined],
    ["Bearer ", undefined],
    ["Bearer a b", undefined],
    [null, undefined],
  ];
  for (const [header, want] of cases) {
    await t.step(String(header), () => {
      const r = new Request("https://x/", header ? { headers: { authorization: header } } : {});
      assert.equal(bearerToken(r), want);
    });
  }
});

Deno.test("constantTimeEqual() compares whole strings", () => {
  assert.ok(constantTimeEqual("abc", "abc"));
  assert.ok(!constantTimeEqual("abc", "abd"));
  assert.ok(!constantTimeEqual("abc", "abcd"));
  assert.ok(constantTimeEqual("", ""));
});
