/**
 * JWT (OpenID Connect ID token) authentication for the issuers of an AuthenticationConfiguration
 * or the `--oidc-*` flags. A token is routed by its (unverified) `iss` to the authenticator of
 * that issuer; a token of no configured issuer is left to the other authenticators. The
 * token is verified with the issuer's discovered keys as go-oidc does it (verify_id_token.ts:
 * signature, `iss`, `aud`, `exp`, `nbf` with one minute of leeway, `iat`); a groups claim held
 * by a distributed claim source is fetched and verified (distributed_claims.ts); then the claims
 * are mapped and validated (jwt_claim_mapping.ts). Successes are cached under the token's
 * SHA-256 (never the token) for at most 10 s and never past the token's expiry, in a bounded
 * map.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { decodeJwt } from "jose";
import type { UserInfo } from "../../../shared/api/authentication/v1/user_info.ts";
import type { Histogram } from "../../metrics/mod.ts";
import { type Authenticator, type AuthResult, bearerToken } from "./authenticator.ts";
import { mapClaims } from "./jwt_claim_mapping.ts";
import { DistributedClaimResolver } from "./distributed_claims.ts";
import { OidcKeySet, type OidcKeySetTuning } from "./oidc_key_set.ts";
import { verifyIdToken } from "./verify_id_token.ts";
import type { CompiledJwtAuthenticator } from "./validate_authentication_configuration.ts";

/** The signature algorithms Kubernetes accepts for ID tokens. */
export const JWT_SIGNING_ALGORITHMS = [
  "ES256",
  "ES384",
  "ES512",
  "PS256",
  "PS384",
  "PS512",
  "RS256",
  "RS384",
  "RS512",
] as const;

/** How long a verified token is remembered at most, ms (kube's token success cache TTL). */
const CACHE_TTL_MS = 10_000;
const CACHE_MAX = 4096;

/** Options shared by the JWT authenticators of one configuration. */
export interface JwtAuthenticatorOptions {
  /** Accepted `alg` values (default: all of {@link JWT_SIGNING_ALGORITHMS}). */
  signingAlgs?: readonly string[];
  tuning?: OidcKeySetTuning;
  /** Logs discovery failures (never a token). */
  onError?: (message: string) => void;
  /** `apiserver_authentication_jwt_authenticator_latency_seconds{result,jwt_issuer_hash}`. */
  latency?: Histogram;
  now?: () => number;
}

type Verified = { ok: true; user: UserInfo; exp: number } | { ok: false; reason: string };

/** The authenticator of one issuer. */
class IssuerAuthenticator {
  readonly keys: OidcKeySet;
  readonly issuerHash: string;
  readonly resolver?: DistributedClaimResolver;
  constructor(readonly compiled: CompiledJwtAuthenticator, readonly opts: JwtAuthenticatorOptions) {
    const { url, discoveryURL, certificateAuthority } = compiled.config.issuer;
    this.keys = new OidcKeySet({
      issuerURL: url,
      discoveryURL,
      certificateAuthority,
      tuning: opts.tuning,
      onError: opts.onError,
    });
    this.issuerHash = `sha256:${createHash("sha256").update(url).digest("hex")}`;
    const groupsClaim = compiled.config.claimMappings.groups.claim;
    if (groupsClaim) {
      this.resolver = new DistributedClaimResolver({
        claim: groupsClaim,
        audiences: compiled.config.issuer.audiences,
        algorithms: opts.signingAlgs ?? JWT_SIGNING_ALGORITHMS,
        certificateAuthority,
        tuning: opts.tuning,
        onError: opts.onError,
        fetch: (u, init) => this.keys.fetch(u, init),
      });
    }
  }

  async verify(token: string): Promise<Verified> {
    const { url, audiences } = this.compiled.config.issuer;
    const now = this.opts.now?.() ?? Date.now();
    const algorithms = this.opts.signingAlgs ?? JWT_SIGNING_ALGORITHMS;
    let payload: Record<string, unknown>;
    try {
      payload = await verifyIdToken(token, await this.keys.getKey(), {
        issuer: url,
        audiences,
        algorithms,
        now,
      });
    } catch (err) {
      return { ok: false, reason: `oidc: verify token: ${(err as Error).message}` };
    }
    try {
      await this.resolver?.expand(payload, now);
    } catch (err) {
      return {
        ok: false,
        reason: `oidc: could not expand distributed claims: ${(err as Error).message}`,
      };
    }
    const mapped = mapClaims(this.compiled, payload);
    if (!mapped.ok) return mapped;
    return { ok: true, user: mapped.user, exp: Number(payload.exp) * 1000 };
  }

  close(): void {
    this.keys.close();
    this.resolver?.close();
  }
}

/** The unverified `iss` of a compact JWT, or undefined when it is not one. */
function untrustedIssuer(token: string): string | undefined {
  if (token.split(".").length !== 3) return undefined;
  try {
    const iss = decodeJwt(token).iss;
    return typeof iss === "string" ? iss : undefined;
  } catch {
    return undefined;
  }
}

/** The JWT authenticators of one configuration, as one Authenticator. */
export class JwtAuthenticatorSet implements Authenticator {
  readonly name = "jwt";
  readonly #byIssuer = new Map<string, IssuerAuthenticator>();
  readonly #cache = new Map<string, { user: UserInfo; until: number }>();
  readonly #now: () => number;

  constructor(compiled: CompiledJwtAuthenticator[], readonly opts: JwtAuthenticatorOptions = {}) {
    this.#now = opts.now ?? (() => Date.now());
    for (const c of compiled) {
      this.#byIssuer.set(c.config.issuer.url, new IssuerAuthenticator(c, opts));
    }
  }

  /** Starts every issuer's discovery in the background. */
  start(): this {
    for (const a of this.#byIssuer.values()) a.keys.start();
    return this;
  }

  /** Waits up to `timeoutMs` for every issuer's discovery; the issuers still not ready. */
  async waitReady(timeoutMs: number): Promise<string[]> {
    const all = [...this.#byIssuer.entries()];
    const ready = await Promise.all(all.map(([, a]) => a.keys.waitReady(timeoutMs)));
    return all.filter((_, i) => !ready[i]).map(([url]) => url);
  }

  /** Stops discovery and releases the HTTP clients. */
  close(): void {
    for (const a of this.#byIssuer.values()) a.close();
  }

  async authenticate(req: Request): Promise<AuthResult> {
    const token = bearerToken(req);
    if (token === undefined) return { kind: "none" };
    const iss = untrustedIssuer(token);
    const a = iss === undefined ? undefined : this.#byIssuer.get(iss);
    if (!a) return { kind: "none" };
    const key = createHash("sha256").update(token).digest("base64");
    const now = this.#now();
    const hit = this.#cache.get(key);
    if (hit && hit.until > now) {
      return { kind: "user", method: this.name, user: structuredClone(hit.user) };
    }
    if (hit) this.#cache.delete(key);
    const start = performance.now();
    const r = await a.verify(token);
    this.opts.latency?.observe(
      { result: r.ok ? "success" : "failure", jwt_issuer_hash: a.issuerHash },
      (performance.now() - start) / 1000,
    );
    if (!r.ok) return { kind: "invalid", method: this.name, reason: r.reason };
    if (this.#cache.size >= CACHE_MAX) this.#cache.delete(this.#cache.keys().next().value!);
    this.#cache.set(key, { user: r.user, until: Math.min(now + CACHE_TTL_MS, r.exp) });
    return { kind: "user", method: this.name, user: structuredClone(r.user) };
  }
}
