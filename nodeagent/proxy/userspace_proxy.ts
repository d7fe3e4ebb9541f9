/**
 * The user-space service proxy: the agent listens on each NodePort on the node-port addresses
 * and, when it can make cluster IPs local ({@link ClusterIpAddresses}), on each ClusterIP:port,
 * and relays every accepted TCP connection to an endpoint ({@link EndpointPicker}). Applying a
 * new table opens and closes listeners and ends the connections whose endpoint is gone.
 *
 * @module
 */
import type { Logger } from "../../shared/log/mod.ts";
import type { ClusterIpAddresses } from "./cluster_ip_addresses.ts";
import { EndpointPicker } from "./endpoint_picker.ts";
import type { Endpoint, ServicePortRule } from "./proxy_table.ts";
import { TcpRelay } from "./tcp_relay.ts";

/** Options of {@link UserspaceProxy}. */
export interface UserspaceProxyOptions {
  /** Addresses to listen on for NodePorts (`0.0.0.0` for all). */
  nodePortAddresses: string[];
  /** Makes cluster IPs local; absent: cluster IPs are not served. */
  clusterIPs?: ClusterIpAddresses;
  logger?: Logger;
  picker?: EndpointPicker;
}

interface Listening {
  listener: Deno.TcpListener;
  rule: string;
}

interface Relayed {
  rule: string;
  ep: Endpoint;
  relay: TcpRelay;
}

/** Connect attempts per accepted connection (each to another endpoint). */
const CONNECT_TRIES = 3;
const CONNECT_TIMEOUT_MS = 5_000;

/** Listens and relays for the Services of the last applied table. */
export class UserspaceProxy {
  readonly #o: UserspaceProxyOptions;
  readonly #picker: EndpointPicker;
  #rules = new Map<string, ServicePortRule>();
  readonly #listening = new Map<string, Listening>();
  readonly #failed = new Set<string>();
  readonly #relays = new Set<Relayed>();

  constructor(o: UserspaceProxyOptions) {
    this.#o = o;
    this.#picker = o.picker ?? new EndpointPicker();
  }

  /** The `host:port` keys listened on (for tests and logs). */
  get listening(): string[] {
    return [...this.#listening.keys()].sort();
  }

  /** Makes the listeners and connections match `rules`. */
  async apply(rules: ServicePortRule[]): Promise<void> {
    const tcp = rules.filter((r) => r.protocol === "TCP");
    this.#rules = new Map(tcp.map((r) => [r.name, r]));
    const want = new Map<string, { host: string; port: number; rule: string }>();
    for (const r of tcp) {
      if (r.nodePort === undefined) continue;
      for (const host of this.#o.nodePortAddresses) {
        want.set(key(host, r.nodePort), { host, port: r.nodePort, rule: r.name });
      }
    }
    if (this.#o.clusterIPs) {
      const local = await this.#o.clusterIPs.sync(new Set(tcp.flatMap((r) => r.clusterIPs)));
      for (const r of tcp) {
        for (const ip of r.clusterIPs) {
          if (local.has(ip)) want.set(key(ip, r.port), { host: ip, port: r.port, rule: r.name });
        }
      }
    }
    for (const [k, l] of this.#listening) {
      const w = want.get(k);
      if (w) l.rule = w.rule;
      else {
        l.listener.close();
        this.#listening.delete(k);
      }
    }
    for (const [k, w] of want) if (!this.#listening.has(k)) this.#listen(k, w.host, w.port, w.rule);
    for (const k of this.#failed) if (!want.has(k)) this.#failed.delete(k);
    this.#endStale();
    this.#picker.prune(new Set(this.#rules.keys()));
  }

  /** Closes every listener and connection and removes the cluster IPs it assigned. */
  async close(): Promise<void> {
    for (const l of this.#listening.values()) l.listener.close();
    this.#listening.clear();
    for (const r of this.#relays) r.relay.close();
    this.#relays.clear();
    await this.#o.clusterIPs?.close();
  }

  #listen(k: string, host: string, port: number, rule: string): void {
    let listener: Deno.TcpListener;
    try {
      listener = Deno.listen({ hostname: host, port, transport: "tcp" });
    } catch (err) {
      if (!this.#failed.has(k)) {
        this.#failed.add(k);
        this.#o.logger?.warn("service proxy: cannot listen", {
          address: k,
          service: rule,
          err: (err as Error).message,
        });
      }
      return;
    }
    this.#failed.delete(k);
    const entry = { listener, rule };
    this.#listening.set(k, entry);
    (async () => {
      try {
        for await (const conn of listener) this.#accept(conn, entry.rule).catch(() => {});
      } catch { /* closed */ }
    })();
  }

  async #accept(conn: Deno.Conn, ruleName: string): Promise<void> {
    const clientIP = (conn.remoteAddr as Deno.NetAddr).hostname;
    const tried: Endpoint[] = [];
    for (let i = 0; i < CONNECT_TRIES; i++) {
      const rule = this.#rules.get(ruleName);
      const ep = rule && this.#picker.pick(rule, clientIP, tried);
      if (!ep) break;
      tried.push(ep);
      const backend = await connectWithin(ep, CONNECT_TIMEOUT_MS);
      if (!backend) continue;
      const relayed: Relayed = { rule: ruleName, ep, relay: new TcpRelay(conn, backend) };
      this.#relays.add(relayed);
      relayed.relay.done.finally(() => this.#relays.delete(relayed));
      // An endpoint removed while connecting ends at once.
      this.#endStale();
      return;
    }
    conn.close();
  }

  /** Ends relayed connections whose endpoint is no longer an endpoint of their Service. */
  #endStale(): void {
    for (const r of this.#relays) {
      const eps = this.#rules.get(r.rule)?.endpoints ?? [];
      if (!eps.some((e) => e.ip === r.ep.ip && e.port === r.ep.port)) {
        r.relay.close();
        this.#relays.delete(r);
      }
    }
  }
}

function key(host: string, port: number): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

/** A connection to `ep`, or undefined when it fails or takes longer than `ms`. */
async function connectWithin(ep: Endpoint, ms: number): Promise<Deno.TcpConn | undefined> {
  const attempt = Deno.connect({ hostname: ep.ip, port: ep.port, transport: "tcp" });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((r) => timer = setTimeout(() => r(undefined), ms));
  try {
    const conn = await Promise.race([attempt, late]);
    if (!conn) attempt.then((c) => c.close(), () => {});
    return conn;
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}
