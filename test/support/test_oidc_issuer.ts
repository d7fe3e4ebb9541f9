/**
 * A fake OpenID Connect issuer for tests: HTTPS on loopback with its own CA, a discovery
 * document, a JSON Web Key Set, keys it can rotate, and ID tokens signed on request.
 *
 * @module
 */
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { serveHttps } from "../../shared/http/https_server.ts";
import { servingPki } from "./test_pki.ts";

type PrivateKey = Awaited<ReturnType<typeof generateKeyPair>>["privateKey"];

/** A running issuer. */
export interface TestOidcIssuer {
  /** `https://127.0.0.1:<port>` (the `iss` of its tokens). */
  url: string;
  /** The CA (PEM) its serving certificate chains to. */
  caPem: string;
  /** How many times the key set was fetched. */
  jwksFetches(): number;
  /** Signs an ID token with the current key (or `opts.key`), default `exp` in an hour. */
  sign(claims: Record<string, unknown>, opts?: { key?: PrivateKey; kid?: string }): Promise<string>;
  /** Replaces the published key with a new one (new kid); returns the old key. */
  rotate(): Promise<void>;
  /**
   * Serves `claims` as a signed JWT (iss, aud and a one-hour exp added) at `{url}{path}`, a
   * distributed claim source.
   */
  serveClaims(path: string, claims: Record<string, unknown>): void;
  /** The Authorization headers the claim sources saw, in order. */
  claimRequests(): { path: string; authorization: string | null }[];
  /** A key that is not published (for bad signatures). */
  strangerKey(): Promise<PrivateKey>;
  close(): Promise<void>;
}

interface Key {
  kid: string;
  privateKey: PrivateKey;
  jwk: JWK;
}

async function newKey(n: number): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair("RS256", { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid: `key-${n}`, alg: "RS256", use: "sig" };
  return { kid: `key-${n}`, privateKey, jwk };
}

/** Starts an issuer on a free loopback port. */
export async function startTestOidcIssuer(): Promise<TestOidcIssuer> {
  const { ca, serving } = await servingPki();
  let n = 1;
  let key = await newKey(n);
  let fetches = 0;
  let url = "";
  const claimSources = new Map<string, Record<string, unknown>>();
  const claimRequests: { path: string; authorization: string | null }[] = [];
  const sign = (claims: Record<string, unknown>, opts: { key?: PrivateKey; kid?: string } = {}) => {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ iss: url, iat: now, exp: now + 3600, ...claims })
      .setProtectedHeader({ alg: "RS256", kid: opts.kid ?? key.kid })
      .sign(opts.key ?? key.privateKey);
  };
  const server = await serveHttps(async (req) => {
    const path = new URL(req.url).pathname;
    const source = claimSources.get(path);
    if (source) {
      claimRequests.push({ path, authorization: req.headers.get("authorization") });
      return new Response(await sign(source), { headers: { "content-type": "application/jwt" } });
    }
    if (path === "/.well-known/openid-configuration") {
      return Response.json({
        issuer: url,
        jwks_uri: `${url}/keys`,
        id_token_signing_alg_values_supported: ["RS256"],
      });
    }
    if (path === "/keys") {
      fetches++;
      return Response.json({ keys: [key.jwk] });
    }
    return new Response("not found", { status: 404 });
  }, {
    hostname: "127.0.0.1",
    port: 0,
    certPem: serving.certPem,
    keyPem: serving.keyPem,
    requestClientCert: false,
    onError: () => {},
    onWarning: () => {},
  });
  url = `https://127.0.0.1:${server.port}`;
  return {
    url,
    caPem: ca.certPem,
    jwksFetches: () => fetches,
    sign,
    serveClaims: (path, claims) => void claimSources.set(path, claims),
    claimRequests: () => claimRequests,
    async rotate() {
      key = await newKey(++n);
    },
    async strangerKey() {
      return (await newKey(999)).privateKey;
    },
    close: () => server.close(),
  };
}
