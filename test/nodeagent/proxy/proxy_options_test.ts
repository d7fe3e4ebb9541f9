import assert from "node:assert/strict";
import {
  ipInCidr,
  nodePortHosts,
  proxyOptionsFromFlags,
} from "../../../nodeagent/proxy/proxy_options.ts";

const flags = (m: Record<string, string>) => (k: string) => m[k];

Deno.test("proxyOptionsFromFlags() reads --proxy-mode and --nodeport-addresses as kube-proxy", () => {
  const errors: string[] = [];
  assert.deepEqual(proxyOptionsFromFlags(flags({}), errors), {
    mode: "auto",
    nodePortAddresses: [],
  });
  assert.deepEqual(
    proxyOptionsFromFlags(
      flags({ "proxy-mode": "userspace", "nodeport-addresses": "10.0.0.0/8, 192.168.1.0/24" }),
      errors,
    ),
    { mode: "userspace", nodePortAddresses: ["10.0.0.0/8", "192.168.1.0/24"] },
  );
  assert.deepEqual(errors, []);
  proxyOptionsFromFlags(
    flags({ "proxy-mode": "iptables", "nodeport-addresses": "x,primary" }),
    errors,
  );
  assert.deepEqual(errors, [
    '--proxy-mode: must be one of nftables, userspace, none; got "iptables"',
    '--nodeport-addresses: "x" is neither a CIDR nor "primary"',
    '--nodeport-addresses: "primary" cannot be combined with CIDRs',
  ]);
});

Deno.test("nodePortHosts() is all addresses, the primary one, or the local ones in the CIDRs", () => {
  const ifs = [{ address: "127.0.0.1" }, { address: "192.0.2.2" }, { address: "fd00::2" }];
  assert.deepEqual(nodePortHosts([], "192.0.2.2", ifs), []);
  assert.deepEqual(nodePortHosts(["primary"], "192.0.2.2", ifs), ["192.0.2.2"]);
  assert.deepEqual(nodePortHosts(["127.0.0.0/8", "fd00::/64"], "192.0.2.2", ifs), [
    "127.0.0.1",
    "fd00::2",
  ]);
  assert.ok(ipInCidr("10.1.2.3", "10.0.0.0/8"));
  assert.ok(!ipInCidr("11.1.2.3", "10.0.0.0/8"));
  assert.ok(!ipInCidr("fd00::1", "10.0.0.0/8"));
});
