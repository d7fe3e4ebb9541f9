/**
 * Service account tokens: JWTs signed with the service account signing key (jose), issued by
 * the TokenRequest API and checked on every request. A token names its service account (and
 * optionally the Pod, Secret or Node it is bound to) in the private `kubernetes.io` claim, as
 * Kubernetes' bound tokens do. With lookup on (`--service-account-lookup`, the default) the
 * service account and the bound object must still exist with the same uid, so deleting either
 * revokes the token.
 *
 * @module
 */
import { compactVerify, decodeJwt, decodeProtectedHeader, SignJWT } from "jose";
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import type { UserInfo } from "../../../shared/api/authentication/v1/user_info.ts";
import {
  type AuthContext,
  type Authenticator,
  type AuthResult,
  bearerToken,
} from "./authenticator.ts";
import { CREDENTIAL_ID_KEY } from "./client_certificate.ts";
import { CORE, type ObjectGetter } from "./object_getter.ts";
import type { ServiceAccountKeys, VerificationKey } from "./service_account_keys.ts";

/** The default issuer (and API audience) when `--service-account-issuer` is not given. */
export const DEFAULT_SERVICE_ACCOUNT_ISSUER = "https://kubernetes.default.svc.cluster.local";

/** The kinds a token can be bound to. */
export type BoundKind = "Pod" | "Secret" | "Node";

/** A reference to an object (name and uid). */
export interface NameUid {
  name: string;
  uid: string;
}

/** The private `kubernetes.io` claim of a bound token. */
export interface KubernetesClaim {
  namespace: string;
  serviceaccount: NameUid;
  pod?: NameUid;
  secret?: NameUid;
  node?: NameUid;
  /** Set only for tokens whose expiration was extended. */
  warnafter?: number;
}

/** What a token is issued for. */
export interface TokenSpec {
  namespace: string;
  serviceAccount: NameUid;
  audiences: string[];
  expirationSeconds: number;
  pod?: NameUid;
  secret?: NameUid;
  node?: NameUid;
}

/** The group of every service account. */
export const SERVICE_ACCOUNTS_GROUP = "system:serviceaccounts";
/** How long an object being deleted still backs its tokens (Kubernetes' grace). */
const DELETION_GRACE_MS = 60_000;

/** The user name of a service account. */
export function serviceAccountUsername(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

/** The namespace and name in a service account user name, or undefined. */
export function parseServiceAccountUsername(
  username: string,
): { namespace: string; name: string } | undefined {
  const m = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(username);
  return m ? { namespace: m[1], name: m[2] } : undefined;
}

/** The groups of a service account. */
export function serviceAccountGroups(namespace: string): string[] {
  return [SERVICE_ACCOUNTS_GROUP, `${SERVICE_ACCOUNTS_GROUP}:${namespace}`];
}

/** Signs service account tokens. */
export class ServiceAccountTokenIssuer {
  readonly issuer: string;
  /** The audiences a token gets when a request names none (`--api-audiences`). */
  readonly apiAudiences: string[];
  readonly #keys: ServiceAccountKeys;
  readonly #now: () => Date;

  constructor(
    keys: ServiceAccountKeys,
    options: { issuer: string; apiAudiences?: string[]; now?: () => Date },
  ) {
    this.#keys = keys;
    this.issuer = options.issuer;
    this.apiAudiences = options.apiAudiences?.length ? options.apiAudiences : [options.issuer];
    this.#now = options.now ?? (() => new Date());
  }

  /** Issues a token; returns it and its expiry. */
  async issue(spec: TokenSpec): Promise<{ token: string; expiresAt: Date }> {
    const nowSec = Math.floor(this.#now().getTime() / 1000);
    const exp = nowSec + spec.expirationSeconds;
    const claim: KubernetesClaim = {
      namespace: spec.namespace,
      serviceaccount: { name: spec.serviceAccount.name, uid: spec.serviceAccount.uid },
    };
    if (spec.pod) claim.pod = spec.pod;
    if (spec.secret) claim.secret = spec.secret;
    if (spec.node) claim.node = spec.node;
    const signing = this.#keys.signing;
    const token = await new SignJWT({ "kubernetes.io": claim })
      .setProtectedHeader({ alg: signing.alg, kid: signing.kid })
      .setIssuer(this.issuer)
      .setSubject(serviceAccountUsername(spec.namespace, spec.serviceAccount.name))
      .setAudience(spec.audiences)
      .setIssuedAt(nowSec)
      .setNotBefore(nowSec)
      .setExpirationTime(exp)
      .setJti(crypto.randomUUID())
      .sign(signing.privateKey);
    return { token, expiresAt: new Date(exp * 1000) };
  }
}

/** Options of the service account token authenticator. */
export interface ServiceAccountAuthenticatorOptions {
  keys: VerificationKey[];
  /** Accepted issuers (the first is the one we sign with). */
  issuers: string[];
  /** Audiences a token must carry one of, unless a request names its own. */
  apiAudiences: string[];
  /** `--service-account-lookup`: check the account and bound objects still exist. */
  lookup: boolean;
  get: ObjectGetter;
  now?: () => Date;
}

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

function isNameUid(v: unknown): v is NameUid {
  return typeof v === "object" && v !== null &&
    typeof (v as NameUid).name === "string" && typeof (v as NameUid).uid === "string";
}

/** Clock skew allowed for `nbf` and `iat`, seconds (go-jose's default leeway). */
const LEEWAY_SECONDS = 60;
/** The longest lifetime a TokenRequest may ask for (2^32 s); a later `exp` is forged or broken. */
const MAX_LIFETIME_SECONDS = 2 ** 32;

/**
 * Checks `exp`, `nbf` and `iat`: each present one must be a whole number of seconds, `exp`
 * must be in the future but no further than the longest lifetime a token can be issued with,
 * and neither `nbf` nor `iat` may lie in the future (beyond the leeway). Returns the problem.
 */
export function checkTimeClaims(
  claims: Record<string, unknown>,
  nowSec: number,
): string | undefined {
  for (const name of ["exp", "nbf", "iat"]) {
    const v = claims[name];
    if (v !== undefined && !Number.isSafeInteger(v)) {
      return `service account token: malformed ${name} claim`;
    }
  }
  const { exp, nbf, iat } = claims as { exp?: number; nbf?: number; iat?: number };
  if (exp === undefined) return "service account token: no expiry";
  if (nowSec >= exp) return "service account token has expired";
  if (exp - nowSec > MAX_LIFETIME_SECONDS + LEEWAY_SECONDS) {
    return "service account token: expiry too far in the future";
  }
  if (nbf !== undefined && nowSec + LEEWAY_SECONDS < nbf) {
    return "service account token is not valid yet";
  }
  if (iat !== undefined && nowSec + LEEWAY_SECONDS < iat) {
    return "service account token: issued in the future";
  }
  return undefined;
}

/**
 * The token's audiences that are among the wanted ones, or the problem when there are none.
 */
function matchAudiences(claims: Record<string, unknown>, wanted: string[]): string[] | string {
  const tokenAudiences = typeof claims.aud === "string"
    ? [claims.aud]
    : Array.isArray(claims.aud)
    ? claims.aud.filter((a): a is string => typeof a === "string")
    : [];
  const matched = tokenAudiences.filter((a) => wanted.includes(a));
  if (matched.length > 0) return matched;
  return `service account token audiences ${
    JSON.stringify(tokenAudiences)
  } are invalid for the target audiences ${JSON.stringify(wanted)}`;
}

/** The problem with a present but malformed pod, secret or node binding, or undefined. */
function malformedBinding(k: Partial<KubernetesClaim>): string | undefined {
  for (const f of ["pod", "secret", "node"] as const) {
    if (k[f] !== undefined && !isNameUid(k[f])) {
      return `service account token: malformed ${f} claim`;
    }
  }
  return undefined;
}

/** The user a verified token stands for: its service account, with the bindings as extra. */
function serviceAccountUser(k: KubernetesClaim, sub: string, jti: unknown): UserInfo {
  const extra: Record<string, string[]> = {};
  if (k.pod) {
    extra["authentication.kubernetes.io/pod-name"] = [k.pod.name];
    extra["authentication.kubernetes.io/pod-uid"] = [k.pod.uid];
  }
  if (k.node) {
    extra["authentication.kubernetes.io/node-name"] = [k.node.name];
    extra["authentication.kubernetes.io/node-uid"] = [k.node.uid];
  }
  if (typeof jti === "string") extra[CREDENTIAL_ID_KEY] = [`JTI=${jti}`];
  const user: UserInfo = {
    username: sub,
    uid: k.serviceaccount.uid,
    groups: serviceAccountGroups(k.namespace),
  };
  if (Object.keys(extra).length) user.extra = extra;
  return user;
}

/** Verifies service account JWTs. */
export class ServiceAccountTokenAuthenticator implements Authenticator {
  readonly name = "serviceaccount";
  readonly #opts: ServiceAccountAuthenticatorOptions;
  readonly #now: () => Date;

  constructor(opts: ServiceAccountAuthenticatorOptions) {
    this.#opts = opts;
    this.#now = opts.now ?? (() => new Date());
  }

  async authenticate(req: Request, _conn: unknown, ctx?: AuthContext): Promise<AuthResult> {
    const token = bearerToken(req);
    if (token === undefined || !JWT_SHAPE.test(token)) return { kind: "none" };
    let header: { alg?: string; kid?: string };
    let unverified: Record<string, unknown>;
    try {
      header = decodeProtectedHeader(token);
      unverified = decodeJwt(token);
    } catch {
      return { kind: "none" }; // not a JWT: someone else's token
    }
    // A JWT of another issuer is not ours to judge (OIDC or a webhook may know it).
    if (typeof unverified.iss !== "string" || !this.#opts.issuers.includes(unverified.iss)) {
      return { kind: "none" };
    }
    const invalid = (reason: string): AuthResult => ({
      kind: "invalid",
      method: this.name,
      reason,
    });
    const candidates = this.#opts.keys.filter((k) =>
      k.alg === header.alg && (header.kid === undefined || header.kid === k.kid)
    );
    let verified = false;
    for (const k of candidates) {
      try {
        await compactVerify(token, k.key, { algorithms: [k.alg] });
        verified = true;
        break;
      } catch { /* try the next key */ }
    }
    if (!verified) return invalid("service account token: invalid signature");
    const claims = unverified;
    const timeProblem = checkTimeClaims(claims, this.#now().getTime() / 1000);
    if (timeProblem) return invalid(timeProblem);
    const matched = matchAudiences(
      claims,
      ctx?.audiences?.length ? ctx.audiences : this.#opts.apiAudiences,
    );
    if (typeof matched === "string") return invalid(matched);
    const k = claims["kubernetes.io"] as Partial<KubernetesClaim> | undefined;
    if (
      typeof k !== "object" || k === null || typeof k.namespace !== "string" ||
      !isNameUid(k.serviceaccount)
    ) {
      return invalid("service account token: missing kubernetes.io claims");
    }
    const sub = serviceAccountUsername(k.namespace, k.serviceaccount.name);
    if (claims.sub !== sub) return invalid("service account token: subject does not match");
    const malformed = malformedBinding(k);
    if (malformed) return invalid(malformed);
    if (this.#opts.lookup) {
      const problem = await this.#lookupProblem(k as KubernetesClaim);
      if (problem) return invalid(problem);
    }
    const user = serviceAccountUser(k as KubernetesClaim, sub, claims.jti);
    return { kind: "user", method: this.name, user, audiences: matched };
  }

  async #lookupProblem(k: KubernetesClaim): Promise<string | undefined> {
    const check = async (
      what: string,
      resource: { group: string; version: string; resource: string },
      namespace: string,
      ref: NameUid,
    ): Promise<string | undefined> => {
      const obj: KubeObject | undefined = await this.#opts.get(resource, namespace, ref.name);
      const label = namespace ? `${what} ${namespace}/${ref.name}` : `${what} ${ref.name}`;
      if (!obj) return `${label} has been deleted`;
      if (obj.metadata.uid !== ref.uid) {
        return `${label} uid (${obj.metadata.uid}) does not match the token's (${ref.uid})`;
      }
      const deleting = obj.metadata.deletionTimestamp;
      if (deleting && Date.parse(deleting) < this.#now().getTime() - DELETION_GRACE_MS) {
        return `${label} is being deleted`;
      }
      return undefined;
    };
    return await check("service account", CORE.serviceaccounts, k.namespace, k.serviceaccount) ??
      (k.pod ? await check("pod", CORE.pods, k.namespace, k.pod) : undefined) ??
      (k.secret ? await check("secret", CORE.secrets, k.namespace, k.secret) : undefined) ??
      // A node is checked only when the token is bound to it directly (not via its pod).
      (k.node && !k.pod ? await check("node", CORE.nodes, "", k.node) : undefined);
  }
}
