/**
 * Checks of network addresses as Kubernetes' validation words them: IPv4 and IPv6 addresses
 * (`IsValidIPv4Address`, `IsValidIPv6Address`), addresses an endpoint may not use
 * (`ValidateNonSpecialIP`), CIDRs, fully qualified and wildcard domain names, and
 * domain-prefixed paths (`IsDomainPrefixedPath`).
 *
 * @module
 */
import type { FieldError } from "../../errors/status_error.ts";
import { parseIpAddress } from "../../pki/ip_address.ts";
import { invalid, required } from "./field_errors.ts";
import { isDNS1123Label, isDNS1123Subdomain, regexError } from "./identifiers.ts";

/** The 4 bytes of an IPv4 address (also IPv4-mapped IPv6), the 16 of an IPv6 one, or null. */
function ipBytes(text: string): Uint8Array | null {
  const b = parseIpAddress(text);
  if (!b) return null;
  const mapped = b.length === 16 && b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff &&
    b[11] === 0xff;
  return mapped ? b.slice(12) : b;
}

/** True when `text` is an IP address of either family. */
export function isIP(text: string): boolean {
  return ipBytes(text) !== null;
}

/** `must be a valid IPv4 address` unless `value` is one. */
export function validateIPv4Address(field: string, value: string): FieldError[] {
  return ipBytes(value)?.length === 4
    ? []
    : [invalid(field, value, "must be a valid IPv4 address")];
}

/** `must be a valid IPv6 address` unless `value` is one. */
export function validateIPv6Address(field: string, value: string): FieldError[] {
  return ipBytes(value)?.length === 16
    ? []
    : [invalid(field, value, "must be a valid IPv6 address")];
}

/** `must be a valid IP address` unless `value` is one of either family. */
export function validateIPAddress(field: string, value: string): FieldError[] {
  return isIP(value) ? [] : [invalid(field, value, "must be a valid IP address")];
}

/** Rejects unspecified, loopback, link-local and link-local multicast addresses. */
export function validateNonSpecialIP(field: string, value: string): FieldError[] {
  const b = ipBytes(value);
  if (!b) return [invalid(field, value, "must be a valid IP address")];
  const errs: FieldError[] = [];
  const v4 = b.length === 4;
  if (b.every((x) => x === 0)) {
    errs.push(invalid(field, value, `may not be unspecified (${value})`));
  }
  const loopback = v4 ? b[0] === 127 : b.slice(0, 15).every((x) => x === 0) && b[15] === 1;
  if (loopback) {
    errs.push(invalid(field, value, "may not be in the loopback range (127.0.0.0/8, ::1/128)"));
  }
  const linkLocal = v4 ? b[0] === 169 && b[1] === 254 : b[0] === 0xfe && (b[1] & 0xc0) === 0x80;
  if (linkLocal) {
    errs.push(
      invalid(field, value, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"),
    );
  }
  const multicast = v4
    ? b[0] === 224 && b[1] === 0 && b[2] === 0
    : b[0] === 0xff && (b[1] & 0x0f) === 0x02;
  if (multicast) {
    errs.push(
      invalid(
        field,
        value,
        "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)",
      ),
    );
  }
  return errs;
}

/** A parsed CIDR: the network's address bytes (host bits cleared) and its prefix length. */
export interface Cidr {
  bytes: Uint8Array;
  bits: number;
}

/** `b` with every bit after the first `bits` cleared. */
function masked(b: Uint8Array, bits: number): Uint8Array {
  return b.map((x, i) => {
    const keep = Math.max(0, Math.min(8, bits - i * 8));
    return x & (0xff << (8 - keep)) & 0xff;
  });
}

/** Parses `address/prefix` as Go's ParseCIDR; null when it is not a CIDR. */
export function parseCidr(text: string): Cidr | null {
  const slash = text.indexOf("/");
  if (slash < 0) return null;
  const b = ipBytes(text.slice(0, slash));
  const p = text.slice(slash + 1);
  if (!b || !/^\d{1,3}$/.test(p) || Number(p) > b.length * 8) return null;
  const bits = Number(p);
  return { bytes: masked(b, bits), bits };
}

/** True when `inner` lies inside `outer` and is strictly smaller. */
export function isStrictSubnet(outer: Cidr, inner: Cidr): boolean {
  if (outer.bytes.length !== inner.bytes.length || inner.bits <= outer.bits) return false;
  return masked(inner.bytes, outer.bits).every((x, i) => x === outer.bytes[i]);
}

/** Kubernetes' IsFullyQualifiedDomainName (an optional trailing dot, at least two labels). */
export function validateFullyQualifiedDomainName(field: string, value: string): FieldError[] {
  if (value === "") return [required(field)];
  const name = value.endsWith(".") ? value.slice(0, -1) : value;
  const errs = isDNS1123Subdomain(name);
  if (errs.length > 0) return [invalid(field, name, errs.join(","))];
  const labels = name.split(".");
  if (labels.length < 2) {
    return [
      invalid(field, name, "should be a domain with at least two segments separated by dots"),
    ];
  }
  for (const label of labels) {
    const labelErrs = isDNS1123Label(label);
    if (labelErrs.length > 0) return [invalid(field, label, labelErrs.join(","))];
  }
  return [];
}

const WILDCARD_FMT = "\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const WILDCARD_RE = new RegExp(`^${WILDCARD_FMT}$`);
const WILDCARD_ERR =
  "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, " +
  "which must consist of lower case alphanumeric characters, '-' or '.' and end with an " +
  "alphanumeric character";

/** Kubernetes' IsWildcardDNS1123Subdomain: the messages of a bad `*.example.com`. */
export function isWildcardDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push("must be no more than 253 characters");
  if (!WILDCARD_RE.test(value)) errs.push(regexError(WILDCARD_ERR, WILDCARD_FMT, "*.example.com"));
  return errs;
}

const HTTP_PATH_FMT = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+";
const HTTP_PATH_RE = new RegExp(`^${HTTP_PATH_FMT}$`);

/** Kubernetes' IsDomainPrefixedPath (e.g. `example.com/ingress-controller`). */
export function validateDomainPrefixedPath(field: string, value: string): FieldError[] {
  if (value === "") return [required(field)];
  const slash = value.indexOf("/");
  const host = slash < 0 ? "" : value.slice(0, slash);
  const path = slash < 0 ? "" : value.slice(slash + 1);
  if (host === "" || path === "") {
    return [invalid(field, value, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  }
  const errs = isDNS1123Subdomain(host).map((m) => invalid(field, host, m));
  if (!HTTP_PATH_RE.test(path)) {
    errs.push(invalid(field, path, regexError("Invalid path", HTTP_PATH_FMT)));
  }
  return errs;
}
