/**
 * The detached JWS of bootstrap tokens (kube's `bootstrap/token/jws`): the kube-public
 * `cluster-info` ConfigMap's `kubeconfig` value signed with HS256, header `{"alg":"HS256","kid":
 * <token id>}`, keyed with the token secret, written in compact form with the payload left out
 * (`<header>..<signature>`). A joining node recomputes it to trust what it read anonymously.
 *
 * @module
 */
import { createHmac, timingSafeEqual } from "node:crypto";

/** The ConfigMap key of the signatures' prefix (`jws-kubeconfig-<token id>`). */
export const JWS_KEY_PREFIX = "jws-kubeconfig-";

/** base64url without padding (RFC 7515). */
export function base64Url(bytes: Uint8Array | string): string {
  const data = typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes;
  let bin = "";
  for (const b of data) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The detached JWS of `content` for the token `tokenId`, keyed with `key` (the token secret). */
export function detachedSignature(content: string, tokenId: string, key: string): string {
  const header = base64Url(JSON.stringify({ alg: "HS256", kid: tokenId }));
  const signingInput = `${header}.${base64Url(content)}`;
  const mac = createHmac("sha256", key).update(signingInput).digest();
  return `${header}..${base64Url(new Uint8Array(mac))}`;
}

/**
 * Whether `jws` is the detached signature of `content` by the token `<tokenId>.<tokenSecret>`:
 * keyed with the secret as kube signs it, or with the whole token as the spec words it.
 */
export function detachedSignatureValid(
  jws: string,
  content: string,
  tokenId: string,
  tokenSecret: string,
): boolean {
  const given = new TextEncoder().encode(jws);
  for (const key of [tokenSecret, `${tokenId}.${tokenSecret}`]) {
    const want = new TextEncoder().encode(detachedSignature(content, tokenId, key));
    if (want.length === given.length && timingSafeEqual(want, given)) return true;
  }
  return false;
}
