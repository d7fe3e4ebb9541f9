/**
 * The authenticator contract and the chain: the first authenticator that recognises a
 * credential decides. A presented credential that is invalid is 401, never anonymous.
 *
 * @module
 */
import type { UserInfo } from "../../registry/generic/admission.ts";

/** The TLS side of a request: the client certificate chain as presented (DER, leaf first). */
export interface ConnectionInfo {
  peerCertificates: Uint8Array[];
  remoteAddr?: { hostname: string; port: number };
}

/** What an authenticator says about a request. */
export type AuthResult =
  /** Not my kind of credential (or none): ask the next authenticator. */
  | { kind: "none" }
  /** Authenticated. */
  | { kind: "user"; user: UserInfo; method: string }
  /** A credential of my kind was presented and is invalid: the request is 401. */
  | { kind: "invalid"; method: string; reason: string };

/** One way of authenticating a request. */
export interface Authenticator {
  readonly name: string;
  authenticate(req: Request, conn: ConnectionInfo): Promise<AuthResult>;
}

/** Tries authenticators in order; adds `system:authenticated` to every authenticated user. */
export class AuthenticatorChain {
  constructor(readonly authenticators: Authenticator[]) {}

  /** The first decisive result, or `none` if no authenticator recognised anything. */
  async authenticate(req: Request, conn: ConnectionInfo): Promise<AuthResult> {
    for (const a of this.authenticators) {
      const r = await a.authenticate(req, conn);
      if (r.kind === "none") continue;
      if (r.kind === "user" && r.user.username !== "system:anonymous") {
        const groups = r.user.groups.includes("system:authenticated")
          ? r.user.groups
          : [...r.user.groups, "system:authenticated"];
        return { ...r, user: { ...r.user, groups } };
      }
      return r;
    }
    return { kind: "none" };
  }
}

/** The bearer token of a request's Authorization header, if any. */
export function bearerToken(req: Request): string | undefined {
  const h = req.headers.get("authorization");
  if (!h) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
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
