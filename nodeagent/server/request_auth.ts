/**
 * Authentication and authorization of requests to the agent's HTTPS port, as the kubelet does
 * them with `authentication.webhook`, `authentication.x509` and `authorization.mode: Webhook`:
 *
 * - a client certificate chain verified against the client CA (`authentication.x509.clientCAFile`,
 *   else the kubeconfig's cluster CA) gives the user (CN) and groups (O);
 * - a bearer token is checked with a TokenReview sent to the API server;
 * - otherwise the request is anonymous when `authentication.anonymous.enabled`, else rejected;
 * - the user is authorized with a SubjectAccessReview (`AlwaysAllow` skips it).
 *
 * A review the API server cannot answer (unreachable, an error status) fails closed: the caller
 * is unauthenticated (401) or denied (403). Answers are cached for the configured TTLs.
 *
 * @module
 */
import type { Certificate } from "../../shared/pki/parse_certificate.ts";
import {
  parseCertificateBundle,
  verifyClientCertificate,
} from "../../shared/pki/verify_client_certificate.ts";
import type { RestClient } from "../../shared/client/rest_client.ts";
import { StatusError } from "../../shared/errors/status_error.ts";
import type { ConnInfo } from "../../shared/http/https_server.ts";
import type { Logger } from "../../shared/log/mod.ts";
import { apiCall } from "../client/api_call.ts";
import type { UserInfo } from "../../shared/api/authentication/v1/user_info.ts";
import type { NodeRequestAttributes } from "../checkpoint/handle_checkpoint.ts";

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

async function sha256(text: string): Promise<string> {
  const d = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(d), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Authenticates with client certificates and TokenReviews. */
export class ApiRequestAuthenticator implements RequestAuthenticator {
  readonly #o: ApiAuthenticatorOptions;
  readonly #cas: Certificate[];
  readonly #cache = new Map<string, { user?: UserInfo; until: number }>();

  /**
   * Creates the authenticator.
   *
   * @throws {Error} when `clientCaPem` is given but holds no valid certificate.
   */
  constructor(opts: ApiAuthenticatorOptions) {
    this.#o = opts;
    this.#cas = opts.clientCaPem?.trim() ? parseCertificateBundle(opts.clientCaPem) : [];
  }

  /** The caller, or undefined. */
  async authenticate(req: Request, conn: ConnInfo): Promise<UserInfo | undefined> {
    if (conn.peerCertificates.length && this.#cas.length) {
      const v = verifyClientCertificate(conn.peerCertificates, this.#cas);
      if (v.ok && v.commonName) {
        return { username: v.commonName, groups: [...v.organizations, "system:authenticated"] };
      }
      if (!v.ok) this.#o.logger?.v(2).info("client certificate rejected", { reason: v.reason });
    }
    const auth = req.headers.get("authorization") ?? "";
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (m && this.#o.webhook) return await this.#token(m[1]);
    if (auth) return undefined;
    return this.#o.anonymous ? ANONYMOUS : undefined;
  }

  async #token(token: string): Promise<UserInfo | undefined> {
    const key = await sha256(token);
    const hit = this.#cache.get(key);
    if (hit && hit.until > Date.now()) return hit.user;
    let user: UserInfo | undefined;
    try {
      user = await this.#review(token);
    } catch (err) {
      // Not cached: the next request asks again.
      this.#o.logger?.warn("TokenReview failed", { err: String(err) });
      return undefined;
    }
    if (this.#cache.size > 1000) this.#cache.clear();
    this.#cache.set(key, { user, until: Date.now() + this.#o.cacheTtlMs });
    return user;
  }

  async #review(token: string): Promise<UserInfo | undefined> {
    const review = await apiCall<
      { status?: { authenticated?: boolean; user?: Partial<UserInfo> } }
    >(
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
    if (!s?.authenticated || !s.user?.username) return undefined;
    return {
      username: s.user.username,
      ...(s.user.uid ? { uid: s.user.uid } : {}),
      groups: s.user.groups ?? [],
      ...(s.user.extra ? { extra: s.user.extra } : {}),
    };
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

/**
 * Authorizes with SubjectAccessReviews. A review that fails (server unreachable, an error
 * status) throws a 500 StatusError, as the kubelet answers "Authorization error"; it is not
 * cached.
 */
export class SubjectAccessReviewAuthorizer implements RequestAuthorizer {
  readonly #o: SarAuthorizerOptions;
  readonly #cache = new Map<string, { allowed: boolean; until: number }>();

  /** Creates the authorizer. */
  constructor(opts: SarAuthorizerOptions) {
    this.#o = opts;
  }

  /**
   * Whether the caller may.
   *
   * @throws {StatusError} 500 when the API server cannot answer the review.
   */
  async authorize(user: UserInfo, attrs: NodeRequestAttributes): Promise<boolean> {
    const key = JSON.stringify([user, attrs]);
    const hit = this.#cache.get(key);
    if (hit && hit.until > Date.now()) return hit.allowed;
    let allowed: boolean;
    try {
      allowed = await this.#review(user, attrs);
    } catch (err) {
      this.#o.logger?.warn("SubjectAccessReview failed", { err: String(err) });
      throw StatusError.internal(
        `Authorization error (user=${user.username}, verb=${attrs.verb}, resource=${attrs.resource}, subresource=${attrs.subresource})`,
      );
    }
    if (this.#cache.size > 1000) this.#cache.clear();
    this.#cache.set(key, {
      allowed,
      until: Date.now() + (allowed ? this.#o.allowedTtlMs : this.#o.deniedTtlMs),
    });
    return allowed;
  }

  async #review(user: UserInfo, attrs: NodeRequestAttributes): Promise<boolean> {
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
            ...(user.uid ? { uid: user.uid } : {}),
            groups: user.groups ?? [],
            ...(user.extra ? { extra: user.extra } : {}),
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
  }
}

/** `authorization.mode: AlwaysAllow`. */
export const alwaysAllow: RequestAuthorizer = { authorize: () => Promise.resolve(true) };
