/**
 * Bootstrap token authentication (`--enable-bootstrap-token-auth`): a bearer token of the form
 * `<token-id>.<token-secret>` is looked up as the Secret `kube-system/bootstrap-token-<id>` of
 * type `bootstrap.kubernetes.io/token`. The Secret must carry the same id and secret (the
 * secret compared in constant time), not be expired or being deleted, and allow
 * `usage-bootstrap-authentication`. The user is `system:bootstrap:<id>` in
 * `system:bootstrappers` plus the Secret's `auth-extra-groups` (each `system:bootstrappers:…`).
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import {
  type Authenticator,
  type AuthResult,
  bearerToken,
  constantTimeEqual,
} from "./authenticator.ts";
import { CORE, type ObjectGetter } from "./object_getter.ts";

/** The token form: 6 + 16 characters of `[a-z0-9]`. */
export const BOOTSTRAP_TOKEN_PATTERN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
/** The Secret type of bootstrap tokens. */
export const BOOTSTRAP_TOKEN_SECRET_TYPE = "bootstrap.kubernetes.io/token";
/** The group of every bootstrap token user. */
export const BOOTSTRAPPERS_GROUP = "system:bootstrappers";
const EXTRA_GROUP_PATTERN = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;

/** A Secret's data value as text (`data` is base64; `stringData` is not stored). */
export function secretValue(secret: KubeObject, key: string): string | undefined {
  const data = secret.data as Record<string, unknown> | undefined;
  const raw = data?.[key];
  if (typeof raw !== "string") return undefined;
  try {
    const bin = atob(raw);
    const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** Why a bootstrap token Secret does not authenticate `id.secret`; undefined when it does. */
export function bootstrapTokenProblem(
  secret: KubeObject,
  id: string,
  tokenSecret: string,
  now: Date,
): string | undefined {
  if (secret.metadata.deletionTimestamp) return "the token's Secret is being deleted";
  if (secret.type !== BOOTSTRAP_TOKEN_SECRET_TYPE) {
    return `the token's Secret is not of type ${BOOTSTRAP_TOKEN_SECRET_TYPE}`;
  }
  const storedSecret = secretValue(secret, "token-secret") ?? "";
  // Compare the secret before anything else that depends on it, and always in constant time.
  if (!constantTimeEqual(storedSecret, tokenSecret)) return "the token secret does not match";
  if (secretValue(secret, "token-id") !== id) return "the Secret's token-id does not match";
  const expiration = secretValue(secret, "expiration");
  if (expiration !== undefined) {
    const t = Date.parse(expiration);
    if (!/^\d{4}-\d{2}-\d{2}T/.test(expiration) || Number.isNaN(t)) {
      return "the token's expiration is not an RFC 3339 time";
    }
    if (now.getTime() >= t) return "the token has expired";
  }
  if (secretValue(secret, "usage-bootstrap-authentication") !== "true") {
    return "the token may not be used for authentication";
  }
  for (const g of extraGroups(secret)) {
    if (!EXTRA_GROUP_PATTERN.test(g)) {
      return `auth-extra-groups: ${JSON.stringify(g)} does not start with system:bootstrappers:`;
    }
  }
  return undefined;
}

function extraGroups(secret: KubeObject): string[] {
  const text = secretValue(secret, "auth-extra-groups");
  if (!text) return [];
  return text.split(",").map((g) => g.trim()).filter((g) => g !== "");
}

/** Authenticates bootstrap tokens against their Secrets in kube-system. */
export class BootstrapTokenAuthenticator implements Authenticator {
  readonly name = "bootstrap-token";
  readonly #get: ObjectGetter;
  readonly #now: () => Date;

  constructor(get: ObjectGetter, options: { now?: () => Date } = {}) {
    this.#get = get;
    this.#now = options.now ?? (() => new Date());
  }

  async authenticate(req: Request): Promise<AuthResult> {
    const token = bearerToken(req);
    if (token === undefined) return { kind: "none" };
    const m = BOOTSTRAP_TOKEN_PATTERN.exec(token);
    if (!m) return { kind: "none" };
    const [, id, tokenSecret] = m;
    const secret = await this.#get(CORE.secrets, "kube-system", `bootstrap-token-${id}`);
    if (!secret) {
      return { kind: "invalid", method: this.name, reason: `no bootstrap token with id ${id}` };
    }
    const problem = bootstrapTokenProblem(secret, id, tokenSecret, this.#now());
    if (problem) {
      return { kind: "invalid", method: this.name, reason: `bootstrap token ${id}: ${problem}` };
    }
    return {
      kind: "user",
      method: this.name,
      user: {
        username: `system:bootstrap:${id}`,
        groups: [BOOTSTRAPPERS_GROUP, ...extraGroups(secret)],
      },
    };
  }
}
