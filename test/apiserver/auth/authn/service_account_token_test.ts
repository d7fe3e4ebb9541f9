import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { SignJWT } from "jose";
import {
  keyIdOf,
  loadServiceAccountKeys,
} from "../../../../apiserver/auth/authn/service_account_keys.ts";
import {
  ServiceAccountTokenAuthenticator,
  ServiceAccountTokenIssuer,
} from "../../../../apiserver/auth/authn/service_account_token.ts";

const ISSUER = "https://kubernetes.default.svc.cluster.local";
const conn = { peerCertificates: [] };
const bearer = (t: string) =>
  new Request("https://x/", { headers: { authorization: `Bearer ${t}` } });
const noObjects = () => Promise.resolve(undefined);
const spec = {
  namespace: "default",
  serviceAccount: { name: "robot", uid: "uid-1" },
  audiences: [ISSUER],
  expirationSeconds: 3600,
};

async function withDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir();
  try {
    return await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("loadServiceAccountKeys() generates sa.key once with mode 0600", async () => {
  await withDir(async (dir) => {
    const a = await loadServiceAccountKeys({ pkiDir: dir });
    assert.equal(a.signing.alg, "RS256");
    assert.equal((await Deno.stat(`${dir}/sa.key`)).mode! & 0o777, 0o600);
    const b = await loadServiceAccountKeys({ pkiDir: dir });
    assert.equal(b.signing.kid, a.signing.kid);
  });
});

Deno.test("loadServiceAccountKeys() reads ECDSA signing keys and extra verification keys", async () => {
  await withDir(async (dir) => {
    const ec = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 });
    await Deno.writeTextFile(
      `${dir}/ec.key`,
      String(ec.privateKey.export({ type: "sec1", format: "pem" })),
    );
    await Deno.writeTextFile(
      `${dir}/old.pub`,
      String(rsa.publicKey.export({ type: "pkcs1", format: "pem" })),
    );
    await Deno.writeTextFile(`${dir}/bad.pem`, "no keys here");
    const keys = await loadServiceAccountKeys({
      pkiDir: dir,
      signingKeyFile: `${dir}/ec.key`,
      keyFiles: [`${dir}/old.pub`],
    });
    assert.equal(keys.signing.alg, "ES256");
    assert.equal(keys.signing.kid, keyIdOf(ec.publicKey));
    assert.deepEqual(keys.verification.map((k) => k.alg), ["ES256", "RS256"]);
    await assert.rejects(
      loadServiceAccountKeys({ pkiDir: dir, keyFiles: [`${dir}/bad.pem`] }),
      /no public or private key found/,
    );
  });
});

Deno.test("ServiceAccountTokenAuthenticator.authenticate() accepts good tokens and rejects bad ones", async (t) => {
  await withDir(async (dir) => {
    const keys = await loadServiceAccountKeys({ pkiDir: dir });
    const otherKeys = await loadServiceAccountKeys({ pkiDir: `${dir}/other` });
    let now = new Date();
    const issuer = new ServiceAccountTokenIssuer(keys, { issuer: ISSUER, now: () => now });
    const forger = new ServiceAccountTokenIssuer(otherKeys, { issuer: ISSUER });
    const authn = new ServiceAccountTokenAuthenticator({
      keys: keys.verification,
      issuers: [ISSUER],
      apiAudiences: [ISSUER],
      lookup: false,
      get: noObjects,
      now: () => now,
    });
    const { token } = await issuer.issue({ ...spec, pod: { name: "p", uid: "pod-uid" } });

    await t.step("a token we issued authenticates as the service account", async () => {
      const r = await authn.authenticate(bearer(token), conn);
      assert.equal(r.kind, "user");
      if (r.kind !== "user") return;
      assert.equal(r.user.username, "system:serviceaccount:default:robot");
      assert.equal(r.user.uid, "uid-1");
      assert.deepEqual(r.user.groups, ["system:serviceaccounts", "system:serviceaccounts:default"]);
      assert.deepEqual(r.user.extra?.["authentication.kubernetes.io/pod-name"], ["p"]);
      assert.match(
        r.user.extra?.["authentication.kubernetes.io/credential-id"]?.[0] ?? "",
        /^JTI=/,
      );
      assert.deepEqual(r.audiences, [ISSUER]);
    });
    await t.step("a token signed by another key is invalid", async () => {
      const forged = (await forger.issue(spec)).token;
      assert.equal((await authn.authenticate(bearer(forged), conn)).kind, "invalid");
    });
    await t.step("a tampered payload is invalid", async () => {
      const [h, p, s] = token.split(".");
      const claims = JSON.parse(atob(p.replace(/-/g, "+").replace(/_/g, "/")));
      claims["kubernetes.io"].serviceaccount.name = "admin";
      claims.sub = "system:serviceaccount:default:admin";
      const p2 = btoa(JSON.stringify(claims)).replace(/\+/g, "-").replace(/\//g, "_").replace(
        /=+$/,
        "",
      );
      assert.equal((await authn.authenticate(bearer(`${h}.${p2}.${s}`), conn)).kind, "invalid");
    });
    await t.step(
      "a token for another audience is invalid, unless the review asks for it",
      async () => {
        const other = (await issuer.issue({ ...spec, audiences: ["vault"] })).token;
        assert.equal((await authn.authenticate(bearer(other), conn)).kind, "invalid");
        const r = await authn.authenticate(bearer(other), conn, { audiences: ["vault"] });
        assert.equal(r.kind, "user");
      },
    );
    await t.step("a token of another issuer is not ours (none)", async () => {
      const foreign = new ServiceAccountTokenIssuer(keys, { issuer: "https://elsewhere" });
      const t2 = (await foreign.issue(spec)).token;
      assert.deepEqual(await authn.authenticate(bearer(t2), conn), { kind: "none" });
    });
    await t.step("an expired token is invalid", async () => {
      now = new Date(now.getTime() + 3601_000);
      const r = await authn.authenticate(bearer(token), conn);
      assert.equal(r.kind, "invalid");
      if (r.kind === "invalid") assert.match(r.reason, /expired/);
    });
    await t.step("something that is not a JWT is none", async () => {
      assert.deepEqual(await authn.authenticate(bearer("abc"), conn), { kind: "none" });
    });
  });
});

Deno.test("ServiceAccountTokenAuthenticator.authenticate() rejects time claims out of range even when signed with the real key", async (t) => {
  await withDir(async (dir) => {
    const keys = await loadServiceAccountKeys({ pkiDir: dir });
    const nowSec = Math.floor(Date.now() / 1000);
    const authn = new ServiceAccountTokenAuthenticator({
      keys: keys.verification,
      issuers: [ISSUER],
      apiAudiences: [ISSUER],
      lookup: false,
      get: noObjects,
    });
    const sign = (times: Record<string, unknown>) =>
      new SignJWT({
        "kubernetes.io": { namespace: "default", serviceaccount: { name: "robot", uid: "u" } },
        iss: ISSUER,
        sub: "system:serviceaccount:default:robot",
        aud: [ISSUER],
        ...times,
      }).setProtectedHeader({ alg: keys.signing.alg, kid: keys.signing.kid })
        .sign(keys.signing.privateKey);
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ["exp 1e300", { exp: 1e300 }, /malformed exp/],
      ["exp past 2^32 s from now", { exp: nowSec + 2 ** 32 + 3600 }, /too far/],
      ["a fractional exp", { exp: nowSec + 3600.5 }, /malformed exp/],
      ["exp as a string", { exp: String(nowSec + 3600) }, /malformed exp/],
      ["a fractional nbf", { exp: nowSec + 3600, nbf: nowSec + 0.5 }, /malformed nbf/],
      ["iat an hour ahead", { exp: nowSec + 7200, iat: nowSec + 3600 }, /issued in the future/],
      ["nbf an hour ahead", { exp: nowSec + 7200, nbf: nowSec + 3600 }, /not valid yet/],
    ];
    for (const [name, times, reason] of cases) {
      await t.step(`${name} is invalid`, async () => {
        const r = await authn.authenticate(bearer(await sign(times)), conn);
        assert.equal(r.kind, "invalid");
        if (r.kind === "invalid") assert.match(r.reason, reason);
      });
    }
    await t.step(
      "the longest lifetime a TokenRequest may ask for still authenticates",
      async () => {
        const r = await authn.authenticate(bearer(await sign({ exp: nowSec + 2 ** 32 })), conn);
        assert.equal(r.kind, "user");
      },
    );
  });
});
