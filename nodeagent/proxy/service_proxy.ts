/**
 * The node agent's service proxy (kube-proxy built in): follows Services and EndpointSlices,
 * computes the proxy table and applies it to the chosen mode's backend, at most a tenth of a
 * second after a change and every 30 s regardless, one apply at a time. Modes: nftables where
 * the agent runs as root and `nft` works; else the user-space proxy, which serves ClusterIPs too
 * when it runs as root with iproute2 and only NodePorts otherwise (logged). `none` turns it off.
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import type { RestClient } from "../../shared/client/rest_client.ts";
import type { Logger } from "../../shared/log/mod.ts";
import { ClusterIpAddresses, runIp } from "./cluster_ip_addresses.ts";
import { NftProxy, nftUsable } from "./nft_proxy.ts";
import { nodePortHosts, type ProxyMode, type ProxyOptions } from "./proxy_options.ts";
import { computeProxyTable, type ServicePortRule } from "./proxy_table.ts";
import { followResource } from "./resource_follower.ts";
import { UserspaceProxy } from "./userspace_proxy.ts";

/** What a mode's backend does with the table. */
export interface ProxyBackend {
  apply(rules: ServicePortRule[]): Promise<void>;
  close(): Promise<void>;
}

/** A running proxy. */
export interface RunningProxy {
  mode: ProxyMode;
  stop(): Promise<void>;
}

/** Dependencies of {@link startServiceProxy}. */
export interface ServiceProxyDeps {
  client: RestClient;
  /** The node's primary address. */
  nodeIP: string;
  logger: Logger;
}

const SERVICES = { version: "v1", resource: "services" };
const SLICES = { group: "discovery.k8s.io", version: "v1", resource: "endpointslices" };
const DEBOUNCE_MS = 100;
/** A full resync this often even without changes (kube-proxy's `--iptables-sync-period`). */
const SYNC_PERIOD_MS = 30_000;

/**
 * Chooses the backend and starts following the API; `none` (or a failure to start, logged)
 * returns a proxy that does nothing. Never throws.
 */
export async function startServiceProxy(
  o: ProxyOptions,
  d: ServiceProxyDeps,
): Promise<RunningProxy> {
  const { mode, backend } = await selectBackend(o, d).catch((err) => {
    d.logger.error("service proxy: cannot start; Services are not served", { err: String(err) });
    return { mode: "none" as const, backend: undefined };
  });
  if (!backend) return { mode, stop: () => Promise.resolve() };
  d.logger.info("service proxy started", { mode });
  const stop = new AbortController();
  let services: KubeObject[] | undefined;
  let slices: KubeObject[] | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> = Promise.resolve();
  let failures = 0;
  const apply = () => {
    timer = undefined;
    if (!services || !slices || stop.signal.aborted) return;
    const rules = computeProxyTable(services, slices);
    running = running.then(() => stop.signal.aborted ? undefined : backend.apply(rules))
      .then(() => {
        failures = 0;
      }, (err) => {
        if (failures++ % 20 === 0) {
          d.logger.error("service proxy: apply failed", { err: String(err) });
        }
        schedule(1000);
      });
  };
  const schedule = (ms = DEBOUNCE_MS) => {
    if (timer === undefined) timer = setTimeout(apply, ms);
  };
  // Retries listeners that could not bind and restores rules changed behind the agent's back.
  const resync = setInterval(() => schedule(), SYNC_PERIOD_MS);
  const follows = [
    followResource({
      client: d.client,
      ref: SERVICES,
      signal: stop.signal,
      logger: d.logger,
      onChange: (x) => {
        services = x;
        schedule();
      },
    }),
    followResource({
      client: d.client,
      ref: SLICES,
      signal: stop.signal,
      logger: d.logger,
      onChange: (x) => {
        slices = x;
        schedule();
      },
    }),
  ];
  return {
    mode,
    async stop() {
      stop.abort();
      clearTimeout(timer);
      clearInterval(resync);
      await Promise.all(follows);
      await running;
      await backend.close();
    },
  };
}

/** The backend of the mode asked for (auto: nftables when usable, else user space). */
async function selectBackend(
  o: ProxyOptions,
  d: ServiceProxyDeps,
): Promise<{ mode: ProxyMode; backend?: ProxyBackend }> {
  if (o.mode === "none") return { mode: "none" };
  const hosts = nodePortHosts(o.nodePortAddresses, d.nodeIP, safeInterfaces());
  if (o.mode !== "userspace" && await nftUsable()) {
    return { mode: "nftables", backend: new NftProxy({ nodePortHosts: hosts, logger: d.logger }) };
  }
  if (o.mode === "nftables") {
    d.logger.error(
      "service proxy: --proxy-mode=nftables needs root and a working nft; using userspace",
    );
  }
  const canAssign = Deno.uid() === 0 && (await runIp(["-V"])).ok;
  if (!canAssign) {
    d.logger.warn(
      "service proxy: not root or no iproute2 'ip': ClusterIPs are NOT reachable on this node; NodePorts are served",
    );
  }
  const backend = new UserspaceProxy({
    nodePortAddresses: hosts.length ? hosts : ["0.0.0.0"],
    clusterIPs: canAssign ? new ClusterIpAddresses({ logger: d.logger }) : undefined,
    logger: d.logger,
  });
  return { mode: "userspace", backend };
}

function safeInterfaces(): { address: string }[] {
  try {
    return Deno.networkInterfaces();
  } catch {
    return [];
  }
}
