/**
 * The nftables ruleset of the proxy table, in the shape of kube-proxy's nftables mode, as one
 * `nft -f` script that replaces the whole table {@link NFT_TABLE} atomically (a full resync):
 *
 * - `services`: ClusterIP:port and NodePort (on local addresses, `fib daddr type local`, or on
 *   the `--nodeport-addresses`) to a per-Service-port chain; NodePort traffic is marked for
 *   masquerade;
 * - `svc-N-F`: ClientIP affinity first (a dynamic set per endpoint, with the timeout), then a
 *   random choice (`numgen random mod n vmap`) among the endpoint chains;
 * - `sep-N-F-M`: hairpin traffic (from the endpoint itself) marked for masquerade, then DNAT;
 * - `no-endpoints` (from the input, forward and output filter hooks): Service ports without
 *   ready endpoints are rejected, as kube-proxy does.
 *
 * @module
 */
import type { Endpoint, ServicePortRule } from "./proxy_table.ts";

/** The table the agent owns (family `inet`). */
export const NFT_TABLE = "nodeagent-proxy";
/** The masquerade mark (kube-proxy's `--masquerade-bit` 14). */
export const MASQ_MARK = "0x00004000";

type Family = "ip" | "ip6";
const familyOf = (ip: string): Family => ip.includes(":") ? "ip6" : "ip";

/** The script that replaces the table with the rules of `rules`. */
export function nftRuleset(rules: readonly ServicePortRule[], nodePortHosts: string[]): string {
  const chains: string[] = [];
  const sets: string[] = [];
  const dispatch: string[] = [];
  const reject: string[] = [];
  rules.forEach((r, i) => {
    const proto = r.protocol.toLowerCase();
    const families = new Set<Family>(r.clusterIPs.map(familyOf));
    if (!families.size) families.add("ip");
    for (const fam of families) {
      const eps = r.endpoints.filter((e) => familyOf(e.ip) === fam);
      const svc = `svc-${i}-${fam === "ip" ? 4 : 6}`;
      const dests = r.clusterIPs.filter((ip) => familyOf(ip) === fam)
        .map((ip) => ({ match: `${fam} daddr ${ip} ${proto} dport ${r.port}`, masq: "" }));
      if (r.nodePort !== undefined) {
        const match = nodePortMatch(fam, nodePortHosts, proto, r.nodePort);
        dests.push({ match, masq: "jump mark-for-masquerade " });
      }
      if (!eps.length) {
        reject.push(...dests.map((d) => `${d.match} reject`));
        continue;
      }
      for (const d of dests) dispatch.push(`${d.match} ${d.masq}goto ${svc}`);
      chains.push(...serviceChains(r, svc, fam, eps, sets));
    }
  });
  return [
    `add table inet ${NFT_TABLE}`,
    `delete table inet ${NFT_TABLE}`,
    `table inet ${NFT_TABLE} {`,
    ...sets,
    // Chains are written before the rules that jump to them.
    chain("mark-for-masquerade", [`meta mark set meta mark | ${MASQ_MARK}`]),
    ...chains,
    chain("services", dispatch),
    chain("no-endpoints", reject),
    hook("nat-prerouting", "nat", "prerouting", "dstnat", ["jump services"]),
    hook("nat-output", "nat", "output", "dstnat", ["jump services"]),
    hook("nat-postrouting", "nat", "postrouting", "srcnat", [
      `meta mark & ${MASQ_MARK} == 0 return`,
      `meta mark set meta mark ^ ${MASQ_MARK}`,
      "masquerade fully-random",
    ]),
    hook("filter-input", "filter", "input", "-110", ["ct state new jump no-endpoints"]),
    hook("filter-forward", "filter", "forward", "-110", ["ct state new jump no-endpoints"]),
    hook("filter-output", "filter", "output", "-110", ["ct state new jump no-endpoints"]),
    "}",
    "",
  ].join("\n");
}

/** The match of a NodePort in family `fam`. */
function nodePortMatch(fam: Family, hosts: string[], proto: string, port: number): string {
  const mine = hosts.filter((h) => familyOf(h) === fam);
  const nf = `meta nfproto ${fam === "ip" ? "ipv4" : "ipv6"}`;
  // As kube-proxy, NodePorts on loopback are left alone (DNAT from there needs route_localnet).
  const notLoopback = fam === "ip" ? "ip daddr != 127.0.0.0/8" : "ip6 daddr != ::1";
  if (!hosts.length) return `${nf} fib daddr type local ${notLoopback} ${proto} dport ${port}`;
  // No address of this family: a match that never holds keeps the rule valid.
  if (!mine.length) {
    return `${nf} ${fam} daddr ${fam === "ip" ? "0.0.0.0" : "::"} ${proto} dport ${port}`;
  }
  return `${fam} daddr { ${mine.join(", ")} } ${proto} dport ${port}`;
}

/** The Service chain and its endpoint chains (affinity sets go to `sets`). */
function serviceChains(
  r: ServicePortRule,
  svc: string,
  fam: Family,
  eps: Endpoint[],
  sets: string[],
): string[] {
  const out: string[] = [];
  const pick: string[] = [];
  const seps = eps.map((_, j) => `${svc.replace("svc-", "sep-")}-${j}`);
  if (r.affinitySeconds !== undefined) {
    const type = fam === "ip" ? "ipv4_addr" : "ipv6_addr";
    for (const sep of seps) {
      sets.push(
        `  set aff-${sep} { type ${type}; flags dynamic,timeout; timeout ${r.affinitySeconds}s; }`,
      );
      pick.push(`${fam} saddr @aff-${sep} goto ${sep}`);
    }
  }
  const vmap = seps.map((sep, j) => `${j} : goto ${sep}`).join(", ");
  pick.push(`numgen random mod ${eps.length} vmap { ${vmap} }`);
  eps.forEach((ep, j) => {
    const body = [`${fam} saddr ${ep.ip} jump mark-for-masquerade`];
    if (r.affinitySeconds !== undefined) body.push(`update @aff-${seps[j]} { ${fam} saddr }`);
    const to = fam === "ip" ? `${ep.ip}:${ep.port}` : `[${ep.ip}]:${ep.port}`;
    body.push(`meta l4proto ${r.protocol.toLowerCase()} dnat ${fam} to ${to}`);
    out.push(chain(seps[j], body, r.name));
  });
  out.push(chain(svc, pick, r.name));
  return out;
}

function chain(name: string, body: string[], comment?: string): string {
  const c = comment ? `    comment ${JSON.stringify(comment)}\n` : "";
  return `  chain ${name} {\n${c}${body.map((l) => `    ${l}\n`).join("")}  }`;
}

function hook(name: string, type: string, on: string, priority: string, body: string[]): string {
  return chain(name, [`type ${type} hook ${on} priority ${priority}; policy accept;`, ...body]);
}
