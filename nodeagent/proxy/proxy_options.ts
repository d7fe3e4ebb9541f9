/**
 * The service proxy's flags, named as kube-proxy's: `--proxy-mode` (`nftables`, `userspace`,
 * or `none` to turn the proxy off; default: nftables where the agent runs as root and `nft`
 * works, else userspace) and `--nodeport-addresses` (CIDRs, or `primary` for the node's
 * address; default: every address).
 *
 * @module
 */
import { parseCidr } from "../../shared/api/validation/network_addresses.ts";

/** The proxy modes. */
export type ProxyMode = "nftables" | "userspace" | "none";

/** The proxy's configuration. */
export interface ProxyOptions {
  /** The mode asked for; `auto` picks one at start. */
  mode: ProxyMode | "auto";
  /** CIDRs or `primary`; empty: all addresses. */
  nodePortAddresses: string[];
}

/** Help for the flags. */
export const PROXY_FLAG_HELP: Record<string, string> = {
  "proxy-mode":
    "service proxy mode: nftables, userspace, or none (off); default nftables as root with nft, else userspace",
  "nodeport-addresses":
    "comma-separated CIDRs whose local addresses serve NodePorts, or 'primary' for the node's address (default: all)",
};

/** The proxy options of the flags; problems to `errors`. */
export function proxyOptionsFromFlags(
  str: (name: string) => string | undefined,
  errors: string[],
): ProxyOptions {
  const mode = str("proxy-mode") ?? "auto";
  if (!["auto", "nftables", "userspace", "none"].includes(mode)) {
    errors.push(
      `--proxy-mode: must be one of nftables, userspace, none; got ${JSON.stringify(mode)}`,
    );
  }
  const nodePortAddresses = (str("nodeport-addresses") ?? "").split(",").map((s) => s.trim())
    .filter(Boolean);
  for (const a of nodePortAddresses) {
    if (a !== "primary" && !parseCidr(a)) {
      errors.push(`--nodeport-addresses: ${JSON.stringify(a)} is neither a CIDR nor "primary"`);
    }
  }
  if (nodePortAddresses.includes("primary") && nodePortAddresses.length > 1) {
    errors.push(`--nodeport-addresses: "primary" cannot be combined with CIDRs`);
  }
  return { mode: mode as ProxyMode | "auto", nodePortAddresses };
}

/** Whether `ip` lies in `cidr`. */
export function ipInCidr(ip: string, cidr: string): boolean {
  const net = parseCidr(cidr);
  const host = net && parseCidr(`${ip}/${net.bits}`);
  return !!net && !!host && host.bytes.length === net.bytes.length &&
    host.bytes.every((b, i) => b === net.bytes[i]);
}

/**
 * The local addresses NodePorts are served on: `[]` means every address; `primary` the node's
 * address; CIDRs the node's interface addresses inside them.
 */
export function nodePortHosts(
  spec: string[],
  nodeIP: string,
  interfaces: { address: string }[],
): string[] {
  if (!spec.length) return [];
  if (spec[0] === "primary") return [nodeIP];
  const local = [...new Set(interfaces.map((i) => i.address))];
  return local.filter((ip) => spec.some((c) => ipInCidr(ip, c)));
}
