/**
 * Authentication and authorization of requests to the agent's HTTPS port, as the kubelet does
 * them with `authentication.webhook`, `authentication.x509` and `authorization.mode: Webhook`:
 *
 * - a client certificate signed by the client CA gives the user (CN) and groups (O);
 * - a bearer token is checked with a TokenReview sent to the API server;
 * - otherwise the request is anonymous when `authentication.anonymous.enabled`, else rejected;
 * - the user is authorized with a SubjectAccessReview (`AlwaysAllow` skips it).
 *
 * Until the API server serves the review APIs (it answers 404), the agent falls back to asking
 * the API server whether the token is valid (a request made with that token) and to allowing
 * every authenticated caller; it logs a warning when it does. Answers are cached for the
 * configured TTLs.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { X509Certificate } from "node:crypto";
import type { RestClient } from "../../shared/client/rest_client.ts";
import type { ConnInfo } from "../../shared/http/https_server.ts";
import type { Logger } from "../../shared/log/mod.ts";
import { apiCall, isStatus } from "../client/api_call.ts";
import type { NodeRequestAttributes, UserInfo } from "../checkpoint/handle_checkpoint.ts";

/** Finds who is calling. */
export interface RequestAuthenticator {
  /** The caller, or undefined when the request carries no valid credentials. */
  authenticate(req: Request, conn: ConnInfo): Promise<UserInfo | undefined>;
}

/** Decides whether a caller may do something to this node. */
export interface RequestAuthorizer {
  /** Whether `user` may perform `attrs`. */
  authorize(user: UserInfo, attrs: NodeRequestAttributes): Promise<boolean>;
}

/** Options of {@link ApiRequestAuthenticator}. */
export interface ApiAuthenticatorOptions {
  /** The agent's client to the API server. */
  client: RestClient;
  /** CA bundle (PEM) that signs accepted client certificates; none disables x509. */
  clientCaPem?: string;
  /** Whether bearer tokens are checked with TokenReview. */
  webhook: boolean;
  /** Whether requests without credentials are `system:anonymous`. */
  anonymous: boolean;
  /** How long a TokenReview answer is kept (ms). */
  cacheTtlMs: number;
  logger?: Logger;
}

const ANONYMOUS: UserInfo = { username: "system:anonymous", groups: ["system:unauthenticated"] };

function pemBlocks(pem: string): string[] {
  return pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
}

/** Reads `CN` and `O` values out of a certificate subject (`CN=a\nO=b\nO=c`). */
export function subjectNames(subject: string): { cn: string; o: string[] } {
  let cn = "";
  const o: string[] = [];
  for (const line of subject.split("\n")) {
    const eq = line.indexOf("=");
    if (eq < 0) continue;
    const k = line.slice(0, eq).trim(), v = line.slice(eq + 1).trim();
    if (k === "CN") cn = v;
    else if (k === "O") o.push(...v.split("+").map((x) => x.trim()));
  }
  return { cn, o };
}

async function sha256(text: string): Promise<string> {
  const d = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(d), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Authenticates with client certificates and TokenReviews. */
export class ApiRequestAuthenticator implements RequestAuthenticator {
  readonly #o: ApiAuthenticatorOptions;
  readonly #cas: X509Certificate[];
  readonly #cache = new Map<string, { user?: UserInfo; until: number }>();
  #warned = false;

  /** Creates the authenticator. */
  constructor(opts: ApiAuthenticatorOptions) {
    this.#o = opts;
    this.#cas = pemBlocks(opts.clientCaPem ?? "").map((p) => new X509Certificate(p));
  }

  /** The caller, or undefined. */
  async authenticate(req: Request, conn: ConnInfo): Promise<UserInfo | undefined> {
    if (conn.peerCertificates.length && this.#cas.length) {
      const user = this.#x509(conn.peerCertificates[0]);
      if (user) return user;
    }
    const auth = req.headers.get("authorization") ?? "";
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (m && this.#o.webhook) return await this.#token(m[1]);
    if (auth) return undefined;
    return this.#o.anonymous ? ANONYMOUS : undefined;
  }

  #x509(der: Uint8Array): UserInfo | undefined {
    let leaf: X509Certificate;
    try {
      leaf = new X509Certificate(Buffer.from(der));
    } catch {
      return undefined;
    }
    const now = Date.now();
    if (now < Date.parse(leaf.validFrom) || now > Date.parse(leaf.validTo)) return undefined;
    const signed = this.#cas.some((ca) => {
      try {
        return leaf.checkIssued(ca) && leaf.verify(ca.publicKey);
      } catch {
        return false;
      }
    });
    if (!signed) return undefined;
    const { cn, o } = subjectNames(leaf.subject);
    if (!cn) return undefined;
    return { username: cn, groups: [...o, "system:authenticated"] };
  }

  async #token(token: string): Promise<UserInfo | undefined> {
    const key = await sha256(token);
    const hit = this.#cache.get(key);
    if (hit && hit.until > Date.now()) return hit.user;
    const user = await this.#review(token);
    if (this.#cache.size > 1000) this.#cache.clear();
    this.#cache.set(key, { user, until: Date.now() + (user ? this.#o.cacheTtlMs : 10_000) });
    return user;
  }

  async #review(token: string): Promise<UserInfo | undefined> {
    try {
      const review = await apiCall<{ status?: { authenticated?: boolean; user?: UserInfo } }>(
        this.#o.client,
        "POST",
        { group: "authentication.k8s.io", version: "v1", resource: "tokenreviews" },
        {
          body: {
            apiVersion: "authentication.k8s.io/v1",
            kind: "TokenReview",
            spec: { token },
          },
        },
      );
      const s = review.status;
      return s?.authenticated && s.user?.username ? s.user : undefined;
    } catch (err) {
      if (!isStatus(err, 404)) {
        this.#o.logger?.warn("TokenReview failed", { err: String(err) });
        return undefined;
      }
    }
    if (!this.#warned) {
      this.#warned = true;
      this.#o.logger?.warn(
        "the API server does not serve TokenReview; checking tokens by calling it with them",
      );
    }
    return await this.#probe(token);
  }

  /** Fallback: a token the API server accepts is valid; its user is unknown to us. */
  async #probe(token: string): Promise<UserInfo | undefined> {
    const config = this.#o.client.config;
    const http = Deno.createHttpClient(config.caPem ? { caCerts: [config.caPem] } : {});
    try {
      const res = await fetch(`${config.server.replace(/\/+$/, "")}/api`, {
        headers: { authorization: `Bearer ${token}` },
        client: http,
        signal: AbortSignal.timeout(10_000),
      });
      await res.body?.cancel();
      if (res.status === 401) return undefined;
      if (res.status >= 500) throw new Error(`API server answered ${res.status}`);
      return {
        username: "system:unverified-token-user",
        groups: ["system:authenticated"],
        extra: { "nodeagent.io/identity-unverified": ["true"] },
      };
    } catch (err) {
      this.#o.logger?.warn("cannot check a token with the API server", { err: String(err) });
      return undefined;
    } finally {
      http.close();
    }
  }
}

/** Options of {@link SubjectAccessReviewAuthorizer}. */
export interface SarAuthorizerOptions {
  client: RestClient;
  /** How long an allowed answer is kept (ms). */
  allowedTtlMs: number;
  /** How long a denied answer is kept (ms). */
  deniedTtlMs: number;
  logger?: Logger;
}

/** Authorizes with SubjectAccessReviews. */
export class SubjectAccessReviewAuthorizer implements RequestAuthorizer {
  readonly #o: SarAuthorizerOptions;
  readonly #cache = new Map<string, { allowed: boolean; until: number }>();
  #warned = false;

  /** Creates the authorizer. */
  constructor(opts: SarAuthorizerOptions) {
    this.#o = opts;
  }

  /** Whether the caller may. */
  async authorize(user: UserInfo, attrs: NodeRequestAttributes): Promise<boolean> {
    const key = JSON.stringify([user, attrs]);
    const hit = this.#cache.get(key);
    if (hit && hit.until > Date.now()) return hit.allowed;
    const allowed = await this.#review(user, attrs);
    if (allowed === undefined) return false;
    if (this.#cache.size > 1000) this.#cache.clear();
    this.#cache.set(key, {
      allowed,
      until: Date.now() + (allowed ? this.#o.allowedTtlMs : this.#o.deniedTtlMs),
    });
    return allowed;
  }

  async #review(user: UserInfo, attrs: NodeRequestAttributes): Promise<boolean | undefined> {
    try {
      const review = await apiCall<{ status?: { allowed?: boolean } }>(
        this.#o.client,
        "POST",
        { group: "authorization.k8s.io", version: "v1", resource: "subjectaccessreviews" },
        {
          body: {
            apiVersion: "authorization.k8s.io/v1",
            kind: "SubjectAccessReview",
            spec: {
              user: user.username,
              uid: user.uid,
              groups: user.groups,
              extra: user.extra,
              resourceAttributes: {
                verb: attrs.verb,
                group: "",
                version: "v1",
                resource: attrs.resource,
                subresource: attrs.subresource,
                name: attrs.name,
              },
            },
          },
        },
      );
      return review.status?.allowed === true;
    } catch (err) {
      if (!isStatus(err, 404)) {
        this.#o.logger?.warn("SubjectAccessReview failed", { err: String(err) });
        return undefined;
      }
    }
    if (!this.#warned) {
      this.#warned = true;
      this.#o.logger?.warn(
        "the API server does not serve SubjectAccessReview; allowing authenticated callers",
      );
    }
    return true;
  }
}

/** `authorization.mode: AlwaysAllow`. */
export const alwaysAllow: RequestAuthorizer = { authorize: () => Promise.resolve(true) };
