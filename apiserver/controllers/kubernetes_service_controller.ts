/**
 * Keeps the `kubernetes` Service in `default`, its Endpoints and its EndpointSlice, as
 * kube-apiserver's controller of the same name: the Service holds the first address of the
 * ClusterIP range and port `https` 443 to this server's secure port; the Endpoints and the
 * EndpointSlice list the address of every API server that maintains them (each adds its own).
 * Runs at start and every 10 s.
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../shared/errors/status_error.ts";
import type { Logger } from "../../shared/log/mod.ts";
import { validateNonSpecialIP } from "../../shared/api/validation/network_addresses.ts";
import type { ResourceRegistry } from "../registry/resource_registry.ts";

const NAMESPACE = "default";
const NAME = "kubernetes";
const INTERVAL_MS = 10_000;

/** Options of the controller. */
export interface KubernetesServiceControllerOptions {
  registry: ResourceRegistry;
  /** The Service's ClusterIP (the first address of `--service-cluster-ip-range`). */
  clusterIP: string;
  /** The address other components reach this server at. */
  advertiseAddress: string;
  /** This server's secure port. */
  securePort: number;
  logger?: Logger;
}

/** The address to advertise for `bindAddress`: itself, or the first external IPv4 address. */
export function advertiseAddressFor(bindAddress: string): string {
  if (bindAddress !== "0.0.0.0" && bindAddress !== "::" && bindAddress !== "") return bindAddress;
  const external = Deno.networkInterfaces().find((i) =>
    i.family === "IPv4" && !i.address.startsWith("127.")
  );
  return external?.address ?? "127.0.0.1";
}

/** Maintains `default/kubernetes`. */
export class KubernetesServiceController {
  readonly #opts: KubernetesServiceControllerOptions;
  #timer: ReturnType<typeof setInterval> | undefined;
  #running: Promise<void> = Promise.resolve();

  constructor(opts: KubernetesServiceControllerOptions) {
    this.#opts = opts;
  }

  /** Reconciles now, then every 10 s until {@link stop}. */
  async start(): Promise<void> {
    await this.reconcile();
    this.#timer = setInterval(() => {
      this.#running = this.reconcile().catch((err) =>
        this.#opts.logger?.error("kubernetes service reconcile failed", { err: String(err) })
      );
    }, INTERVAL_MS);
  }

  /** Stops the periodic reconcile and waits for a running one. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#running;
  }

  /** Creates or repairs the Service, then adds this server to the Endpoints. */
  async reconcile(): Promise<void> {
    await this.#service();
    await this.#endpoints();
    await this.#endpointSlice();
  }

  async #service(): Promise<void> {
    const store = this.#opts.registry.lookup("", "v1", "services");
    if (!store) return;
    const ports = [{
      name: "https",
      port: 443,
      protocol: "TCP",
      targetPort: this.#opts.securePort,
    }];
    const existing = await getOrUndefined(() => store.get(NAMESPACE, NAME));
    if (!existing) {
      await ignoreConflict(() =>
        store.create(NAMESPACE, {
          metadata: {
            name: NAME,
            namespace: NAMESPACE,
            labels: { component: "apiserver", provider: "kubernetes" },
          },
          spec: {
            type: "ClusterIP",
            clusterIP: this.#opts.clusterIP,
            ports,
            sessionAffinity: "None",
          },
        })
      );
      return;
    }
    const spec = existing.spec as Record<string, unknown>;
    if (JSON.stringify(spec.ports) === JSON.stringify(ports) && spec.type === "ClusterIP") return;
    const next = structuredClone(existing);
    Object.assign(next.spec as Record<string, unknown>, { type: "ClusterIP", ports });
    await ignoreConflict(() => store.update(NAMESPACE, NAME, next));
  }

  async #endpoints(): Promise<void> {
    const store = this.#opts.registry.lookup("", "v1", "endpoints");
    if (!store) return;
    const { advertiseAddress: ip, securePort: port } = this.#opts;
    const existing = await getOrUndefined(() => store.get(NAMESPACE, NAME));
    const ports = [{ name: "https", port, protocol: "TCP" }];
    if (!existing) {
      await ignoreConflict(() =>
        store.create(NAMESPACE, {
          metadata: {
            name: NAME,
            namespace: NAMESPACE,
            labels: { "endpointslice.kubernetes.io/skip-mirror": "true" },
          },
          subsets: [{ addresses: [{ ip }], ports }],
        })
      );
      return;
    }
    const subsets = (existing.subsets ?? []) as { addresses?: { ip: string }[] }[];
    if (subsets[0]?.addresses?.some((a) => a.ip === ip)) return;
    const next: KubeObject = structuredClone(existing);
    const addresses = [...(subsets[0]?.addresses ?? []), { ip }]
      .sort((a, b) => a.ip < b.ip ? -1 : 1);
    next.subsets = [{ addresses, ports }];
    await ignoreConflict(() => store.update(NAMESPACE, NAME, next));
  }

  async #endpointSlice(): Promise<void> {
    const store = this.#opts.registry.lookup("discovery.k8s.io", "v1", "endpointslices");
    if (!store) return;
    const { advertiseAddress: ip, securePort: port } = this.#opts;
    // An EndpointSlice may not hold a loopback or link-local address (a server bound to
    // 127.0.0.1 has only its Endpoints), as in Kubernetes.
    if (validateNonSpecialIP("ip", ip).length > 0) return;
    const existing = await getOrUndefined(() => store.get(NAMESPACE, NAME));
    const ports = [{ name: "https", port, protocol: "TCP" }];
    const addressType = ip.includes(":") ? "IPv6" : "IPv4";
    const endpoint = (address: string) => ({ addresses: [address], conditions: { ready: true } });
    if (!existing) {
      await ignoreConflict(() =>
        store.create(NAMESPACE, {
          metadata: {
            name: NAME,
            namespace: NAMESPACE,
            labels: { "kubernetes.io/service-name": NAME },
          },
          addressType,
          endpoints: [endpoint(ip)],
          ports,
        })
      );
      return;
    }
    const known = ((existing.endpoints ?? []) as { addresses?: string[] }[])
      .flatMap((e) => e.addresses ?? []);
    if (known.includes(ip)) return;
    const next: KubeObject = structuredClone(existing);
    next.endpoints = [...known, ip].sort().map(endpoint);
    next.ports = ports;
    await ignoreConflict(() => store.update(NAMESPACE, NAME, next));
  }
}

async function getOrUndefined(fn: () => Promise<KubeObject>): Promise<KubeObject | undefined> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof StatusError && err.code === 404) return undefined;
    throw err;
  }
}

/** Another API server won the race: the next round sees its write. */
async function ignoreConflict(fn: () => Promise<unknown>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    if (!(err instanceof StatusError && err.code === 409)) throw err;
  }
}
