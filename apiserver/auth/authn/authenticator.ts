/**
 * The authenticator contract and the chain. Every authenticator looks at one kind of credential
 * and answers `none` (not mine, or nothing presented), `user` or `invalid`. The chain asks each
 * in order: the first `user` wins; when none succeeds, a presented credential that was invalid
 * makes the request 401 (it never falls through to anonymous). Every authenticated user gets
 * `system:authenticated`.
 *
 * @module
 */
import type { UserInfo } from "../../../shared/api/authentication/v1/user_info.ts";

/** The TLS side of a request: the client certificate chain as presented (DER, leaf first). */
export interface ConnectionInfo {
  peerCertificates: Uint8Array[];
  remoteAddr?: { hostname: string; port: number };
}

/** Per-call context of an authentication (optional third argument). */
export interface AuthContext {
  /**
   * Audiences the credential must be meant for (TokenReview's `spec.audiences`); absent: the
   * server's API audiences.
   */
  audiences?: string[];
}

/** What an authenticator says about a request. */
export type AuthResult =
  /** Not my kind of credential (or none): ask the next authenticator. */
  | { kind: "none" }
  /** Authenticated; `audiences` are those of the credential that matched the request's. */
  | { kind: "user"; user: UserInfo; method: string; audiences?: string[] }
  /** A credential of my kind was presented and is invalid: the request is 401. */
  | { kind: "invalid"; method: string; reason: string };

/** One way of authenticating a request. */
export interface Authenticator {
  readonly name: string;
  authenticate(req: Request, conn: ConnectionInfo, ctx?: AuthContext): Promise<AuthResult>;
}

/** The username of the anonymous user. */
export const ANONYMOUS_USER = "system:anonymous";
/** The group every authenticated user is in. */
export const AUTHENTICATED_GROUP = "system:authenticated";
/** The group of the anonymous user. */
export const UNAUTHENTICATED_GROUP = "system:unauthenticated";

/**
 * Tries authenticators in order; the first `user` wins and gets `system:authenticated` added.
 * An `invalid` answer is remembered and the next authenticators are still asked (a bad client
 * certificate does not spoil a good bearer token, as in Kubernetes' union authenticator), but an
 * authenticator named `anonymous` is never consulted after one.
 */
export class AuthenticatorChain implements Authenticator {
  readonly name = "chain";
  constructor(readonly authenticators: Authenticator[]) {}

  /** The first success, else the first `invalid`, else `none`. */
  async authenticate(req: Request, conn: ConnectionInfo, ctx?: AuthContext): Promise<AuthResult> {
    let invalid: AuthResult | undefined;
    for (const a of this.authenticators) {
      if (invalid && a.name === "anonymous") break;
      const r = await a.authenticate(req, conn, ctx);
      if (r.kind === "none") continue;
      if (r.kind === "invalid") {
        invalid ??= r;
        continue;
      }
      if (r.user.username !== ANONYMOUS_USER) return { ...r, user: withAuthenticatedGroup(r.user) };
      return r;
    }
    return invalid ?? { kind: "none" };
  }
}

/** The user with `system:authenticated` among its groups. */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.groups.includes(AUTHENTICATED_GROUP)) return user;
  return { ...user, groups: [...user.groups, AUTHENTICATED_GROUP] };
}

/**
 * The bearer token of a request's Authorization header, if any. As in Kubernetes, the scheme
 * is case-insensitive and an empty token counts as none.
 */
export function bearerToken(req: Request): string | undefined {
  const h = req.headers.get("authorization");
  if (!h) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h.trim());
  return m ? m[1] : undefined;
}

/** Compares two strings in time independent of where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}
