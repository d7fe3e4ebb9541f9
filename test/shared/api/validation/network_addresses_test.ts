import assert from "node:assert/strict";
import {
  isStrictSubnet,
  isWildcardDNS1123Subdomain,
  parseCidr,
  validateDomainPrefixedPath,
  validateFullyQualifiedDomainName,
  validateIPv4Address,
  validateIPv6Address,
  validateNonSpecialIP,
} from "../../../../shared/api/validation/network_addresses.ts";
import { fieldErrorMessage } from "../../../../shared/errors/status_error.ts";

const messages = (errs: Parameters<typeof fieldErrorMessage>[0][]) => errs.map(fieldErrorMessage);

Deno.test("validateIPv4Address() and validateIPv6Address() accept only their family", () => {
  assert.deepEqual(validateIPv4Address("f", "10.0.0.1"), []);
  assert.deepEqual(validateIPv4Address("f", "::ffff:10.0.0.1"), []);
  assert.deepEqual(messages(validateIPv4Address("f", "2001:db8::1")), [
    'f: Invalid value: "2001:db8::1": must be a valid IPv4 address',
  ]);
  assert.deepEqual(validateIPv6Address("f", "2001:db8::1"), []);
  assert.deepEqual(messages(validateIPv6Address("f", "10.0.0.1")), [
    'f: Invalid value: "10.0.0.1": must be a valid IPv6 address',
  ]);
});

Deno.test("validateNonSpecialIP() rejects unspecified, loopback and link-local addresses", () => {
  assert.deepEqual(validateNonSpecialIP("f", "10.0.0.1"), []);
  assert.deepEqual(validateNonSpecialIP("f", "2001:db8::1"), []);
  assert.deepEqual(messages(validateNonSpecialIP("f", "0.0.0.0")), [
    'f: Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0)',
  ]);
  assert.match(messages(validateNonSpecialIP("f", "::1"))[0], /loopback range/);
  assert.match(messages(validateNonSpecialIP("f", "169.254.1.1"))[0], /link-local range/);
  assert.match(messages(validateNonSpecialIP("f", "fe80::1"))[0], /link-local range/);
  assert.match(messages(validateNonSpecialIP("f", "224.0.0.5"))[0], /link-local multicast/);
  assert.match(messages(validateNonSpecialIP("f", "ff02::1"))[0], /link-local multicast/);
});

Deno.test("parseCidr() and isStrictSubnet() follow Go's ParseCIDR", () => {
  assert.deepEqual(parseCidr("10.1.2.3/8"), { bytes: Uint8Array.from([10, 0, 0, 0]), bits: 8 });
  assert.equal(parseCidr("10.0.0.0/33"), null);
  assert.equal(parseCidr("10.0.0.0"), null);
  const outer = parseCidr("10.0.0.0/8")!;
  assert.equal(isStrictSubnet(outer, parseCidr("10.2.0.0/16")!), true);
  assert.equal(isStrictSubnet(outer, parseCidr("10.0.0.0/8")!), false);
  assert.equal(isStrictSubnet(outer, parseCidr("11.0.0.0/16")!), false);
  assert.equal(isStrictSubnet(parseCidr("2001:db8::/32")!, parseCidr("2001:db8:1::/48")!), true);
});

Deno.test("validateFullyQualifiedDomainName() wants two labels and allows a trailing dot", () => {
  assert.deepEqual(validateFullyQualifiedDomainName("f", "db.example.com."), []);
  assert.deepEqual(messages(validateFullyQualifiedDomainName("f", "")), ["f: Required value"]);
  assert.deepEqual(messages(validateFullyQualifiedDomainName("f", "local")), [
    'f: Invalid value: "local": should be a domain with at least two segments separated by dots',
  ]);
});

Deno.test("isWildcardDNS1123Subdomain() and validateDomainPrefixedPath() word errors as Kubernetes", () => {
  assert.deepEqual(isWildcardDNS1123Subdomain("*.example.com"), []);
  assert.match(isWildcardDNS1123Subdomain("a.*.com")[0], /must start with '\*\.'/);
  assert.deepEqual(validateDomainPrefixedPath("f", "example.com/ingress"), []);
  assert.deepEqual(messages(validateDomainPrefixedPath("f", "plain")), [
    'f: Invalid value: "plain": must be a domain-prefixed path (such as "acme.io/foo")',
  ]);
  assert.match(messages(validateDomainPrefixedPath("f", "Bad_Host/x"))[0], /RFC 1123 subdomain/);
});
