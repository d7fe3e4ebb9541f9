/**
 * The URL of a received request, from its target and Host field.
 *
 * @module
 */
import type { RequestHead } from "./request_head.ts";

/** A Host header that is a DNS name, IPv4 or bracketed IPv6 address, with an optional port. */
const PLAIN_HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/;

/**
 * The `https:` URL of the request `head`: an absolute-form target as it is, an origin-form
 * target on the Host field's authority, or on `hostname`:`port` (the listening address) when
 * there is no usable Host. Throws when the target makes no URL.
 */
export function requestUrl(head: RequestHead, hostname: string, port: number): string {
  const target = head.target;
  if (target.startsWith("/")) {
    const host = head.host;
    // A plain host[:port] and an origin-form target make the URL as they are; the Request
    // parses it once (parsing it here as well would parse it twice).
    if (host && !target.startsWith("//") && PLAIN_HOST.test(host)) {
      return `https://${host}${target}`;
    }
    if (host) {
      try {
        return new URL(target, `https://${host}`).href;
      } catch { /* fall through to the listening address */ }
    }
    const h = hostname.includes(":") ? `[${hostname}]` : hostname;
    return new URL(target, `https://${h}:${port}`).href;
  }
  return new URL(target).href;
}
