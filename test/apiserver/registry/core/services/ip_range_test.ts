import assert from "node:assert/strict";
import {
  isIPv4,
  parseCIDR,
  parsePortRange,
} from "../../../../../apiserver/registry/core/services/ip_range.ts";
import { parseServerOptions } from "../../../../../apiserver/options.ts";

Deno.test("parseCIDR() hands out the addresses between the network and broadcast ones", () => {
  const r = parseCIDR("10.96.0.0/12");
  assert.equal(r.size, 2 ** 20 - 2);
  assert.equal(r.at(0), "10.96.0.1");
  assert.equal(r.at(r.size - 1), "10.111.255.254");
  assert.equal(r.offsetOf("10.96.0.1"), 0);
  assert.equal(r.offsetOf("10.96.0.0"), undefined);
  assert.equal(r.offsetOf("10.112.0.1"), undefined);
  assert.equal(parseCIDR("192.168.1.77/24").text, "192.168.1.0/24");
  assert.throws(() => parseCIDR("10.0.0.0/31"), /prefix lengths 8 to 30/);
  assert.throws(() => parseCIDR("fd00::/64"), /invalid IPv4 CIDR/);
});

Deno.test("parsePortRange() reads first-last or a single port", () => {
  const r = parsePortRange("30000-32767");
  assert.equal(r.size, 2768);
  assert.equal(r.at(0), "30000");
  assert.equal(r.offsetOf("32767"), 2767);
  assert.equal(r.offsetOf("80"), undefined);
  assert.equal(parsePortRange("8080").size, 1);
  assert.throws(() => parsePortRange("3-1"), /invalid port range/);
});

Deno.test("isIPv4() accepts dotted quads only", () => {
  assert.ok(isIPv4("10.0.0.1"));
  for (const bad of ["10.0.0", "10.0.0.256", "010.0.0.1", "a.b.c.d", "::1"]) {
    assert.ok(!isIPv4(bad), bad);
  }
});

Deno.test("parseServerOptions() rejects bad Service ranges", () => {
  const r = parseServerOptions([
    "--service-cluster-ip-range=nope",
    "--service-node-port-range=9-1",
  ]);
  assert.equal(r.ok, false);
  if (!r.ok) {
    assert.ok(r.errors.some((e) => e.startsWith("--service-cluster-ip-range: invalid IPv4 CIDR")));
    assert.ok(r.errors.some((e) => e.startsWith("--service-node-port-range: invalid port range")));
  }
});
