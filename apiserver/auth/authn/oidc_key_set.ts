/**
 * An OpenID issuer's signing keys: OIDC discovery (`{url}/.well-known/openid-configuration`,
 * or `discoveryURL`), whose `issuer` must equal the configured URL, then the JSON Web Key Set
 * at its `jwks_uri`. Discovery is retried until it succeeds (every 10 s by default); a token
 * signed with a key the cached set does not hold makes the set be fetched again, at most once
 * per cooldown, so a rotated key is picked up without letting bad tokens hammer the issuer.
 * The connection trusts `certificateAuthority` when given, else the host's roots.
 *
 * @module
 */
import { createRemoteJWKSet, customFetch, type JWTVerifyGetKey } from "jose";

/** Tuning of key fetching (tests shorten it). */
export interface OidcKeySetTuning {
  /** Between discovery attempts, ms (default 10 s). */
  discoveryRetryMs?: number;
  /** Least time between two fetches of the key set for unknown keys, ms (default 10 s). */
  refreshCooldownMs?: number;
  /** Keys older than this are fetched again on use, ms (default 10 min). */
  maxAgeMs?: number;
  /** Per-request timeout, ms (default 30 s, as kube's client). */
  timeoutMs?: number;
}

/** Where the issuer is and how to reach it. */
export interface OidcKeySetOptions {
  issuerURL: string;
  discoveryURL?: string;
  certificateAuthority?: string;
  tuning?: OidcKeySetTuning;
  /** Called with each discovery failure (never holds a token or key). */
  onError?: (message: string) => void;
}

/** The discovery document's fields we use. */
interface Discovery {
  issuer?: unknown;
  jwks_uri?: unknown;
}

/** The keys of one issuer, discovered lazily and refreshed on unknown key ids. */
export class OidcKeySet {
  readonly #opts: OidcKeySetOptions;
  readonly #client: Deno.HttpClient;
  #keys?: JWTVerifyGetKey;
  #attempt?: Promise<void>;
  #timer?: ReturnType<typeof setTimeout>;
  #closed = false;
  #lastError = "oidc: authenticator not initialized";

  constructor(opts: OidcKeySetOptions) {
    this.#opts = opts;
    this.#client = Deno.createHttpClient(
      opts.certificateAuthority ? { caCerts: [opts.certificateAuthority] } : {},
    );
  }

  /** Starts discovery in the background (retried until it succeeds or close()). */
  start(): void {
    void this.#discover();
  }

  /** Whether discovery has succeeded. */
  get ready(): boolean {
    return this.#keys !== undefined;
  }

  /**
   * Waits for discovery (the attempt in flight, or one started now); resolves true when keys
   * are available, false when the attempt failed or `timeoutMs` passed.
   */
  async waitReady(timeoutMs: number): Promise<boolean> {
    if (this.#keys) return true;
    await this.#within(this.#attempt ?? this.#discover(), timeoutMs);
    return this.#keys !== undefined;
  }

  /**
   * The key resolver for jose's jwtVerify. While discovery has not succeeded, a request waits
   * for the attempt in flight, if any, but never starts one (the retry timer does), so bad
   * traffic cannot make the server hammer an unreachable issuer.
   */
  async getKey(): Promise<JWTVerifyGetKey> {
    if (!this.#keys && this.#attempt) {
      await this.#within(this.#attempt, this.#opts.tuning?.timeoutMs ?? 30_000);
    }
    if (!this.#keys) throw new Error(this.#lastError);
    return this.#keys;
  }

  async #within(p: Promise<void>, ms: number): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<void>((r) => (timer = setTimeout(r, ms)));
    try {
      await Promise.race([p, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Stops retrying and releases the HTTP client. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#client.close();
  }

  #discover(): Promise<void> {
    if (this.#attempt) return this.#attempt;
    this.#attempt = this.#discoverOnce().then(
      (keys) => {
        this.#keys = keys;
      },
      (err) => {
        this.#lastError = `oidc: authenticator not initialized: ${(err as Error).message}`;
        this.#opts.onError?.(`oidc authenticator: initializing plugin: ${(err as Error).message}`);
        if (!this.#closed) {
          clearTimeout(this.#timer);
          this.#timer = setTimeout(
            () => void this.#discover(),
            this.#opts.tuning?.discoveryRetryMs ?? 10_000,
          );
        }
      },
    ).finally(() => {
      this.#attempt = undefined;
    });
    return this.#attempt;
  }

  async #discoverOnce(): Promise<JWTVerifyGetKey> {
    const { issuerURL, discoveryURL, tuning } = this.#opts;
    const where = discoveryURL ??
      `${issuerURL.replace(/\/+$/, "")}/.well-known/openid-configuration`;
    const res = await this.fetch(where, { headers: { accept: "application/json" } });
    const text = await res.text();
    if (res.status !== 200) {
      throw new Error(`${res.status} ${res.statusText}: ${text.slice(0, 200)}`);
    }
    let doc: Discovery;
    try {
      doc = JSON.parse(text);
    } catch {
      throw new Error("failed to decode provider discovery object");
    }
    if (doc.issuer !== issuerURL) {
      throw new Error(
        `oidc: issuer did not match the issuer returned by provider, expected ${
          JSON.stringify(issuerURL)
        } got ${JSON.stringify(doc.issuer)}`,
      );
    }
    if (typeof doc.jwks_uri !== "string") throw new Error("oidc: provider has no jwks_uri");
    const keys = createRemoteJWKSet(new URL(doc.jwks_uri), {
      cooldownDuration: tuning?.refreshCooldownMs ?? 10_000,
      cacheMaxAge: tuning?.maxAgeMs ?? 600_000,
      timeoutDuration: tuning?.timeoutMs ?? 30_000,
      [customFetch]: (url, init) => this.fetch(url, init),
    });
    await keys.reload();
    return keys;
  }

  /** Fetches `url` trusting this issuer's CA, with its timeout unless `init` has a signal. */
  fetch(url: string | URL, init: RequestInit = {}): Promise<Response> {
    return fetch(url, {
      ...init,
      client: this.#client,
      signal: init.signal ?? AbortSignal.timeout(this.#opts.tuning?.timeoutMs ?? 30_000),
    });
  }
}
