/**
 * The user-space service proxy: the agent listens on each NodePort on the node-port addresses
 * and, when it can make cluster IPs local ({@link ClusterIpAddresses}), on each ClusterIP:port,
 * relays every accepted TCP connection to an endpoint ({@link EndpointPicker}), and forwards
 * UDP by client session ({@link UdpForwarder}). Applying a new table opens and closes listeners
 * and ends the connections and sessions whose endpoint is gone.
 *
 * @module
 */
import type { Logger } from "../../shared/log/mod.ts";
import type { ClusterIpAddresses } from "./cluster_ip_addresses.ts";
import { EndpointPicker } from "./endpoint_picker.ts";
import type { Endpoint, ServicePortRule } from "./proxy_table.ts";
import { TcpRelay } from "./tcp_relay.ts";
import { UdpForwarder } from "./udp_forwarder.ts";

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
  rule: string;
  close(): void;
  /** UDP only: its sessions. */
  udp?: UdpForwarder;
}

interface Wanted {
  protocol: "TCP" | "UDP";
  host: string;
  port: number;
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
  readonly #sharing = new Set<string>();

  constructor(o: UserspaceProxyOptions) {
    this.#o = o;
    this.#picker = o.picker ?? new EndpointPicker();
  }

  /** The `PROTOCOL host:port` keys listened on (for tests and logs). */
  get listening(): string[] {
    return [...this.#listening.keys()].sort();
  }

  /** Makes the listeners and connections match `rules`. */
  async apply(rules: ServicePortRule[]): Promise<void> {
    this.#rules = new Map(rules.map((r) => [r.name, r]));
    const want = new Map<string, Wanted>();
    const add = (r: ServicePortRule, host: string, port: number) =>
      want.set(key(r.protocol, host, port), { protocol: r.protocol, host, port, rule: r.name });
    for (const r of rules) {
      if (r.nodePort === undefined) continue;
      for (const host of this.#o.nodePortAddresses) add(r, host, r.nodePort);
    }
    if (this.#o.clusterIPs) {
      const local = await this.#o.clusterIPs.sync(new Set(rules.flatMap((r) => r.clusterIPs)));
      for (const r of rules) {
        if (this.#sharesPort(r)) continue;
        for (const ip of r.clusterIPs) if (local.has(ip)) add(r, ip, r.port);
      }
    }
    for (const [k, l] of this.#listening) {
      const w = want.get(k);
      if (w) l.rule = w.rule;
      else {
        l.close();
        this.#listening.delete(k);
      }
    }
    for (const [k, w] of want) if (!this.#listening.has(k)) await this.#listen(k, w);
    for (const k of this.#failed) if (!want.has(k)) this.#failed.delete(k);
    this.#endStale();
    this.#picker.prune(new Set(this.#rules.keys()));
  }

  /**
   * Whether the Service port is also the pods' port: pods share the host network, so a listener
   * on ClusterIP:port would keep a pod from binding the wildcard address on that port. Such a
   * ClusterIP is left to the pods on this node, which answer on it themselves (logged once).
   */
  #sharesPort(r: ServicePortRule): boolean {
    const shares = r.targetPort === r.port || r.endpoints.some((e) => e.port === r.port);
    if (shares && !this.#sharing.has(r.name)) {
      this.#o.logger?.warn(
        "service proxy: the Service port is the pods' port; its ClusterIP is left to the pods on this node (no load-balancing)",
        { service: r.name, port: r.port },
      );
    }
    if (shares) this.#sharing.add(r.name);
    else this.#sharing.delete(r.name);
    return shares;
  }

  /** Closes every listener and connection and removes the cluster IPs it assigned. */
  async close(): Promise<void> {
    for (const l of this.#listening.values()) l.close();
    this.#listening.clear();
    for (const r of this.#relays) r.relay.close();
    this.#relays.clear();
    await this.#o.clusterIPs?.close();
  }

  async #listen(k: string, w: Wanted): Promise<void> {
    try {
      const entry = w.protocol === "TCP" ? this.#listenTcp(w) : await this.#listenUdp(w);
      this.#failed.delete(k);
      this.#listening.set(k, entry);
    } catch (err) {
      if (!this.#failed.has(k)) {
        this.#failed.add(k);
        this.#o.logger?.warn("service proxy: cannot listen", {
          address: k,
          service: w.rule,
          err: (err as Error).message,
        });
      }
    }
  }

  #listenTcp(w: Wanted): Listening {
    const listener = Deno.listen({ hostname: w.host, port: w.port, transport: "tcp" });
    const entry: Listening = { rule: w.rule, close: () => listener.close() };
    (async () => {
      try {
        for await (const conn of listener) this.#accept(conn, entry.rule).catch(() => {});
      } catch { /* closed */ }
    })();
    return entry;
  }

  async #listenUdp(w: Wanted): Promise<Listening> {
    const entry: Listening = { rule: w.rule, close: () => entry.udp?.close() };
    entry.udp = await UdpForwarder.open(w.host, w.port, (clientIP) => {
      const rule = this.#rules.get(entry.rule);
      return rule && this.#picker.pick(rule, clientIP);
    });
    return entry;
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

  /** Ends connections and sessions whose endpoint is no longer an endpoint of their Service. */
  #endStale(): void {
    for (const l of this.#listening.values()) {
      const eps = this.#rules.get(l.rule)?.endpoints ?? [];
      l.udp?.endStale((ep) => eps.some((e) => e.ip === ep.ip && e.port === ep.port));
    }
    for (const r of this.#relays) {
      const eps = this.#rules.get(r.rule)?.endpoints ?? [];
      if (!eps.some((e) => e.ip === r.ep.ip && e.port === r.ep.port)) {
        r.relay.close();
        this.#relays.delete(r);
      }
    }
  }
}

function key(protocol: string, host: string, port: number): string {
  return host.includes(":") ? `${protocol} [${host}]:${port}` : `${protocol} ${host}:${port}`;
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
