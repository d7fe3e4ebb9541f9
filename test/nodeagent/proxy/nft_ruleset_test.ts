import assert from "node:assert/strict";
import { NFT_TABLE, nftRuleset } from "../../../nodeagent/proxy/nft_ruleset.ts";
import { type NftCommand, NftProxy } from "../../../nodeagent/proxy/nft_proxy.ts";
import type { ServicePortRule } from "../../../nodeagent/proxy/proxy_table.ts";

const WEB: ServicePortRule = {
  name: "default/web:http",
  protocol: "TCP",
  clusterIPs: ["10.96.0.10"],
  port: 80,
  nodePort: 30080,
  endpoints: [{ ip: "10.1.0.1", port: 8080 }, { ip: "10.1.0.2", port: 8080 }],
};
const EMPTY: ServicePortRule = {
  name: "default/none:",
  protocol: "UDP",
  clusterIPs: ["10.96.0.11"],
  port: 53,
  endpoints: [],
};

Deno.test("nftRuleset() replaces the table with DNAT rules and random load-balancing", () => {
  const text = nftRuleset([WEB, EMPTY], []);
  const lines = text.split("\n").map((l) => l.trim());
  // A full resync: the table is created if absent, deleted, and written anew in one script.
  assert.deepEqual(lines.slice(0, 3), [
    `add table inet ${NFT_TABLE}`,
    `delete table inet ${NFT_TABLE}`,
    `table inet ${NFT_TABLE} {`,
  ]);
  for (
    const want of [
      "type nat hook prerouting priority dstnat; policy accept;",
      "type nat hook output priority dstnat; policy accept;",
      "ip daddr 10.96.0.10 tcp dport 80 goto svc-0-4",
      "meta nfproto ipv4 fib daddr type local ip daddr != 127.0.0.0/8 tcp dport 30080 jump mark-for-masquerade goto svc-0-4",
      "numgen random mod 2 vmap { 0 : goto sep-0-4-0, 1 : goto sep-0-4-1 }",
      "ip saddr 10.1.0.1 jump mark-for-masquerade",
      "meta l4proto tcp dnat ip to 10.1.0.1:8080",
      "meta l4proto tcp dnat ip to 10.1.0.2:8080",
      "ip daddr 10.96.0.11 udp dport 53 reject",
      "masquerade fully-random",
      'comment "default/web:http"',
    ]
  ) assert.ok(lines.includes(want), `missing ${want}:\n${text}`);
  assert.ok(!text.includes("svc-1-4 {"), "no service chain without endpoints");
});

Deno.test("nftRuleset() keeps ClientIP affinity in timed sets and honours node-port addresses", () => {
  const text = nftRuleset([{ ...WEB, affinitySeconds: 60 }], ["192.0.2.2", "fd00::2"]);
  const lines = text.split("\n").map((l) => l.trim());
  for (
    const want of [
      "set aff-sep-0-4-0 { type ipv4_addr; flags dynamic,timeout; timeout 60s; }",
      "ip saddr @aff-sep-0-4-0 goto sep-0-4-0",
      "update @aff-sep-0-4-1 { ip saddr }",
      "ip daddr { 192.0.2.2 } tcp dport 30080 jump mark-for-masquerade goto svc-0-4",
    ]
  ) assert.ok(lines.includes(want), `missing ${want}:\n${text}`);
});

Deno.test("nftRuleset() writes IPv6 Services with ip6 matches and bracketed DNAT targets", () => {
  const text = nftRuleset([{
    ...WEB,
    clusterIPs: ["fd00:96::a"],
    endpoints: [{ ip: "fd00:1::1", port: 8080 }, { ip: "10.1.0.1", port: 8080 }],
  }], []);
  assert.ok(text.includes("ip6 daddr fd00:96::a tcp dport 80 goto svc-0-6"), text);
  assert.ok(text.includes("dnat ip6 to [fd00:1::1]:8080"), text);
  assert.ok(!text.includes("10.1.0.1:8080"), "endpoints of the other family are left out");
});

Deno.test("NftProxy applies the ruleset through nft -f - and deletes its table on close", async () => {
  const calls: { args: string[]; stdin?: string }[] = [];
  let ok = true;
  const nft: NftCommand = (args, stdin) => {
    calls.push({ args, stdin });
    return Promise.resolve({ ok, stderr: ok ? "" : "Error: syntax error" });
  };
  const proxy = new NftProxy({ nodePortHosts: [], nft });
  await proxy.apply([WEB]);
  assert.deepEqual(calls[0].args, ["-f", "-"]);
  assert.equal(calls[0].stdin, nftRuleset([WEB], []));
  ok = false;
  await assert.rejects(proxy.apply([WEB]), /nft -f failed: Error: syntax error/);
  ok = true;
  await proxy.close();
  assert.deepEqual(calls[2].args, ["delete", "table", "inet", NFT_TABLE]);
});
