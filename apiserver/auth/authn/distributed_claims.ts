/**
 * Distributed claims (OpenID Connect Core 1.0 §5.6.2) for the groups claim, as Kubernetes'
 * OIDC authenticator resolves them: when a verified ID token lacks the groups claim but names
 * a source for it in `_claim_names`, the source's `endpoint` in `_claim_sources` is fetched
 * (with its `access_token` as bearer token, when given); the answer is a JWT whose issuer's keys
 * are discovered like any issuer's, which must pass the same checks as an ID token (audiences,
 * algorithms, expiry), and whose groups claim is copied into the ID token's claims. Sources
 * without an endpoint (aggregated claims) are ignored. Errors carry kube's words, never a token.
 *
 * @module
 */
import { decodeJwt } from "jose";
import { OidcKeySet, type OidcKeySetTuning } from "./oidc_key_set.ts";
import { verifyIdToken } from "./verify_id_token.ts";

/** The most claim-source issuers one authenticator keeps keys for. */
const MAX_ISSUERS = 16;
/** The largest distributed claim answer read, bytes. */
const MAX_ANSWER = 1 << 20;

/** How distributed claims of one issuer are resolved. */
export interface DistributedClaimsOptions {
  /** The claim that may be distributed (the groups claim). */
  claim: string;
  audiences: string[];
  algorithms: readonly string[];
  /** The CA the issuer's connections trust (the claim sources' too). */
  certificateAuthority?: string;
  tuning?: OidcKeySetTuning;
  onError?: (message: string) => void;
  /** Fetches with the issuer's TLS trust. */
  fetch: (url: string, init: RequestInit) => Promise<Response>;
}

type Claims = Record<string, unknown>;

/** A JSON object of strings, or undefined. */
function stringMap(v: unknown): Record<string, string> | undefined {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return undefined;
  const entries = Object.entries(v);
  return entries.every(([, x]) => typeof x === "string") ? Object.fromEntries(entries) : undefined;
}

/** The unverified `iss` of a compact JWT. */
function untrustedIssuer(jwt: string): string {
  if (jwt.trim().startsWith("{")) throw new Error("token is not compact JWT");
  const parts = jwt.split(".");
  if (parts.length !== 3) throw new Error("malformed token");
  let iss: unknown;
  try {
    iss = decodeJwt(jwt).iss;
  } catch {
    throw new Error("error decoding token");
  }
  return typeof iss === "string" ? iss : "";
}

/** Resolves the distributed groups claim of one issuer's tokens. */
export class DistributedClaimResolver {
  readonly #o: DistributedClaimsOptions;
  readonly #keys = new Map<string, OidcKeySet>();

  constructor(o: DistributedClaimsOptions) {
    this.#o = o;
  }

  /** Stops the claim-source issuers' discovery. */
  close(): void {
    for (const k of this.#keys.values()) k.close();
    this.#keys.clear();
  }

  /** Copies the distributed claim into `claims` when it is distributed; throws kube's errors. */
  async expand(claims: Claims, now: number): Promise<void> {
    const claim = this.#o.claim;
    if (claim in claims || !("_claim_names" in claims)) return;
    const names = stringMap(claims._claim_names);
    if (!names) {
      throw new Error("oidc: error parsing distributed claim names: not an object of strings");
    }
    if (!("_claim_sources" in claims)) throw new Error("oidc: no claim sources");
    const sources = claims._claim_sources;
    if (typeof sources !== "object" || sources === null || Array.isArray(sources)) {
      throw new Error("oidc: could not parse claim sources: not an object");
    }
    const src = names[claim];
    if (src === undefined) return;
    const ep = (sources as Record<string, unknown>)[src];
    if (ep === undefined) {
      throw new Error(`id token _claim_names contained a source ${src} missing in _claims_sources`);
    }
    const endpoint = (ep ?? {}) as { endpoint?: unknown; access_token?: unknown };
    if (typeof endpoint.endpoint !== "string" || endpoint.endpoint === "") return;
    const token = typeof endpoint.access_token === "string" ? endpoint.access_token : "";
    claims[claim] = await this.#resolve(endpoint.endpoint, token, now);
  }

  async #resolve(url: string, accessToken: string, now: number): Promise<unknown> {
    const claim = this.#o.claim;
    let jwt: string;
    try {
      jwt = await this.#fetchJwt(url, accessToken);
    } catch (err) {
      throw new Error(`while getting distributed claim "${claim}": ${(err as Error).message}`);
    }
    let iss: string;
    try {
      iss = untrustedIssuer(jwt);
    } catch (err) {
      throw new Error(
        `getting untrusted issuer from endpoint ${url} failed for claim "${claim}": ${
          (err as Error).message
        }`,
      );
    }
    const keys = await this.#keySet(iss);
    let got: Claims;
    try {
      got = await verifyIdToken(jwt, await keys.getKey(), {
        issuer: iss,
        audiences: this.#o.audiences,
        algorithms: this.#o.algorithms,
        now,
      });
    } catch (err) {
      throw new Error(`verify distributed claim token: ${(err as Error).message}`);
    }
    if (!(claim in got)) {
      throw new Error(
        `jwt returned by distributed claim endpoint "${url}" did not contain claim: ${claim}`,
      );
    }
    return got[claim];
  }

  async #fetchJwt(url: string, accessToken: string): Promise<string> {
    const headers: Record<string, string> = {};
    if (accessToken) headers.authorization = `Bearer ${accessToken}`;
    const res = await this.#o.fetch(url, { headers });
    const text = await res.text();
    if (res.status < 200 || res.status > 226) {
      throw new Error(
        `error while getting distributed claim JWT: ${res.status} ${res.statusText}`.trim(),
      );
    }
    if (text.length > MAX_ANSWER) throw new Error("could not decode distributed claim response");
    return text.trim();
  }

  /**
   * The keys of a claim source's issuer: discovered on first use (which waits for it); later
   * uses never start a discovery (the key set's own retries do), so tokens cannot make the
   * server hammer an unreachable claim issuer.
   */
  async #keySet(iss: string): Promise<OidcKeySet> {
    let keys = this.#keys.get(iss);
    if (!keys) {
      if (this.#keys.size >= MAX_ISSUERS) {
        throw new Error(`verifying untrusted issuer ${iss} failed: too many claim source issuers`);
      }
      keys = new OidcKeySet({
        issuerURL: iss,
        certificateAuthority: this.#o.certificateAuthority,
        tuning: this.#o.tuning,
        onError: this.#o.onError,
      });
      this.#keys.set(iss, keys);
      keys.start();
      await keys.waitReady(this.#o.tuning?.timeoutMs ?? 10_000);
    }
    if (!keys.ready) {
      throw new Error(
        `verifying untrusted issuer ${iss} failed: verifier not initialized for issuer: "${iss}"`,
      );
    }
    return keys;
  }
}
