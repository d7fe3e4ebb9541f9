/**
 * The bootstrap token Secrets of `kube-system` as the token controllers read them: id, secret,
 * expiration and usages.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { BOOTSTRAP_TOKEN_SECRET_TYPE, secretValue } from "../../auth/authn/bootstrap_token.ts";
import type { ResourceRegistry } from "../../registry/resource_registry.ts";

/** Where bootstrap token Secrets live. */
export const TOKEN_NAMESPACE = "kube-system";
/** The name prefix of their Secrets. */
export const TOKEN_SECRET_PREFIX = "bootstrap-token-";
/** The change-feed prefix of kube-system's Secrets. */
export const TOKEN_SECRETS_KEY_PREFIX = "/registry/core/secrets/kube-system/";

/** One bootstrap token Secret, read. */
export interface BootstrapTokenSecret {
  secret: KubeObject;
  /** `token-id`, or undefined when missing. */
  id?: string;
  /** `token-secret` (never log it). */
  tokenSecret?: string;
  /** The expiration in ms since the epoch; undefined for none, NaN when unparsable. */
  expiresAt?: number;
  /** `usage-bootstrap-signing` is "true". */
  signing: boolean;
}

/** Reads a bootstrap token Secret. */
export function readTokenSecret(secret: KubeObject): BootstrapTokenSecret {
  const expiration = secretValue(secret, "expiration");
  return {
    secret,
    id: secretValue(secret, "token-id"),
    tokenSecret: secretValue(secret, "token-secret"),
    expiresAt: expiration === undefined ? undefined : Date.parse(expiration),
    signing: secretValue(secret, "usage-bootstrap-signing") === "true",
  };
}

/** Whether the token expired at `now` (an unparsable expiration counts as expired). */
export function tokenExpired(token: BootstrapTokenSecret, now: number): boolean {
  return token.expiresAt !== undefined && !(token.expiresAt > now);
}

/** The bootstrap token Secrets of kube-system (type and name prefix as kube requires). */
export async function listTokenSecrets(
  registry: ResourceRegistry,
): Promise<BootstrapTokenSecret[]> {
  const secrets = registry.lookup("", "v1", "secrets")!;
  const list = await secrets.list(TOKEN_NAMESPACE, { plan: { mode: "latest" } });
  return list.items
    .filter((s) =>
      s.type === BOOTSTRAP_TOKEN_SECRET_TYPE && s.metadata.name?.startsWith(TOKEN_SECRET_PREFIX)
    )
    .map(readTokenSecret);
}
