/**
 * The authenticating proxy (`--requestheader-*`): a front proxy that authenticated the user
 * passes the identity in headers (`X-Remote-User`, repeatable `X-Remote-Group`,
 * `X-Remote-Extra-<key>`). The headers are believed only on a connection whose client
 * certificate verifies against `--requestheader-client-ca-file` and, when
 * `--requestheader-allowed-names` is set, whose common name is one of them. Extra keys are
 * percent-decoded and lowercased.
 *
 * @module
 */
import type { UserInfo } from "../../../shared/api/authentication/v1/user_info.ts";
import type { Authenticator, AuthResult, ConnectionInfo } from "./authenticator.ts";
import { VerifiedChainCache } from "./verified_chain_cache.ts";

/** Options of the request header authenticator. */
export interface RequestHeaderOptions {
  /** The proxy's CA bundle (PEM). */
  caPem: string;
  /** Allowed client certificate common names; empty: any. */
  allowedNames?: string[];
  /** Header names holding the user name (the first present wins). */
  usernameHeaders?: string[];
  /** Header names holding the groups. */
  groupHeaders?: string[];
  /** Prefixes of extra headers. */
  extraHeaderPrefixes?: string[];
  /** Header names holding the uid (none by default). */
  uidHeaders?: string[];
  now?: () => Date;
}

/** Kubernetes' defaults of the header flags. */
export const REQUEST_HEADER_DEFAULTS = {
  usernameHeaders: ["X-Remote-User"],
  groupHeaders: ["X-Remote-Group"],
  extraHeaderPrefixes: ["X-Remote-Extra-"],
} as const;

/** Decodes a percent-encoded extra key; the raw key when it is not valid encoding. */
function unescapeKey(key: string): string {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}

/** All values of a header, split as Go's net/http keeps them (one per header line). */
function headerValues(headers: Headers, name: string): string[] {
  const v = headers.get(name);
  if (v === null) return [];
  // The Fetch Headers class joins repeated headers with ", ".
  return v.split(",").map((s) => s.trim()).filter((s) => s !== "");
}

/** Authenticates requests from a trusted front proxy. */
export class RequestHeaderAuthenticator implements Authenticator {
  readonly name = "requestheader";
  readonly #verifier: VerifiedChainCache;
  readonly #allowed: Set<string>;
  readonly #user: string[];
  readonly #group: string[];
  readonly #extra: string[];
  readonly #uid: string[];
  readonly #now: () => Date;

  constructor(opts: RequestHeaderOptions) {
    this.#verifier = new VerifiedChainCache(opts.caPem);
    this.#allowed = new Set((opts.allowedNames ?? []).filter((n) => n !== ""));
    this.#user = (opts.usernameHeaders ?? [...REQUEST_HEADER_DEFAULTS.usernameHeaders])
      .map((h) => h.trim()).filter((h) => h);
    this.#group = (opts.groupHeaders ?? [...REQUEST_HEADER_DEFAULTS.groupHeaders])
      .map((h) => h.trim()).filter((h) => h);
    this.#extra = (opts.extraHeaderPrefixes ?? [...REQUEST_HEADER_DEFAULTS.extraHeaderPrefixes])
      .map((h) => h.trim().toLowerCase()).filter((h) => h);
    this.#uid = (opts.uidHeaders ?? []).map((h) => h.trim()).filter((h) => h);
    this.#now = opts.now ?? (() => new Date());
  }

  authenticate(req: Request, conn: ConnectionInfo): Promise<AuthResult> {
    return Promise.resolve(this.#authenticate(req, conn));
  }

  #authenticate(req: Request, conn: ConnectionInfo): AuthResult {
    if (conn.peerCertificates.length === 0) return { kind: "none" };
    const username = this.#user.map((h) => req.headers.get(h)?.trim() ?? "").find((v) => v !== "");
    // Without a user header this is not a proxied request (the certificate may be a plain
    // client certificate for the x509 authenticator).
    if (username === undefined) return { kind: "none" };
    const v = this.#verifier.verify(conn.peerCertificates, this.#now());
    if (!v.ok) {
      return {
        kind: "invalid",
        method: this.name,
        reason: `request header proxy certificate: ${v.reason}`,
      };
    }
    if (this.#allowed.size > 0 && !this.#allowed.has(v.commonName)) {
      return {
        kind: "invalid",
        method: this.name,
        reason: `request header proxy certificate common name ${
          JSON.stringify(v.commonName)
        } is not allowed`,
      };
    }
    const groups: string[] = [];
    for (const h of this.#group) groups.push(...headerValues(req.headers, h));
    const extra: Record<string, string[]> = {};
    for (const [name, value] of req.headers) {
      const lower = name.toLowerCase();
      const prefix = this.#extra.find((p) => lower.startsWith(p));
      if (!prefix) continue;
      const key = unescapeKey(lower.slice(prefix.length)).toLowerCase();
      if (!key) continue;
      (extra[key] ??= []).push(...value.split(",").map((s) => s.trim()).filter((s) => s !== ""));
    }
    const user: UserInfo = { username, groups };
    const uid = this.#uid.map((h) => req.headers.get(h)?.trim() ?? "").find((u) => u !== "");
    if (uid) user.uid = uid;
    if (Object.keys(extra).length) user.extra = extra;
    return { kind: "user", method: this.name, user };
  }
}
