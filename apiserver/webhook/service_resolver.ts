/**
 * Resolves a webhook's Service reference to one ready endpoint address, as kube-aggregator's
 * endpoint routing does: the Service must exist and be of type ClusterIP, NodePort or
 * LoadBalancer, one of its ports must be the referenced port, and the address is a ready
 * endpoint of its EndpointSlices (label `kubernetes.io/service-name`) with the port of the same
 * name, chosen at random.
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import type { ResourceRegistry } from "../registry/resource_registry.ts";

/** Where Services and their EndpointSlices are read from. */
export interface ServiceEndpointSource {
  /** The Service, or undefined when it does not exist. */
  getService(namespace: string, name: string): Promise<KubeObject | undefined>;
  /** The EndpointSlices of the Service (label `kubernetes.io/service-name=<name>`). */
  listEndpointSlices(namespace: string, serviceName: string): Promise<KubeObject[]>;
}

/** An address to connect to. */
export interface ResolvedEndpoint {
  /** An IPv4 or IPv6 address (IPv6 without brackets). */
  host: string;
  port: number;
}

const SERVICE_NAME_LABEL = "kubernetes.io/service-name";
const ROUTABLE_TYPES = ["ClusterIP", "NodePort", "LoadBalancer"];

type Obj = Record<string, unknown>;
const asObj = (v: unknown): Obj => (typeof v === "object" && v !== null ? v as Obj : {});
const asList = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(asObj) : []);

/**
 * Picks a ready endpoint of Service `namespace/name` for its port `port`. Throws an Error
 * worded as kube's resolver (`no endpoints available for service "<name>"`, ...).
 */
export async function resolveServiceEndpoint(
  source: ServiceEndpointSource,
  namespace: string,
  name: string,
  port: number,
): Promise<ResolvedEndpoint> {
  const svc = await source.getService(namespace, name);
  if (!svc) throw new Error(`service ${JSON.stringify(name)} not found`);
  const spec = asObj(svc.spec);
  const type = typeof spec.type === "string" ? spec.type : "ClusterIP";
  if (!ROUTABLE_TYPES.includes(type)) {
    throw new Error(`unsupported service type ${JSON.stringify(type)}`);
  }
  const svcPort = asList(spec.ports).find((p) => p.port === port);
  if (!svcPort) {
    throw new Error(`no service port ${port} found for service ${JSON.stringify(name)}`);
  }
  const portName = typeof svcPort.name === "string" ? svcPort.name : "";
  const candidates: ResolvedEndpoint[] = [];
  for (const slice of await source.listEndpointSlices(namespace, name)) {
    const s = slice as unknown as Obj;
    if (s.addressType === "FQDN") continue;
    const p = asList(s.ports).find((x) => (typeof x.name === "string" ? x.name : "") === portName);
    if (!p || typeof p.port !== "number") continue;
    for (const ep of asList(s.endpoints)) {
      if (asObj(ep.conditions).ready === false) continue;
      const addresses: unknown[] = Array.isArray(ep.addresses) ? ep.addresses : [];
      const first = addresses.find((a) => typeof a === "string");
      if (typeof first === "string") candidates.push({ host: first, port: p.port });
    }
  }
  if (candidates.length === 0) {
    throw new Error(`no endpoints available for service ${JSON.stringify(name)}`);
  }
  return candidates[Math.floor(Math.random() * candidates.length)];
}

/** Reads Services and EndpointSlices through the registry's stores (their watch caches). */
export function registryEndpointSource(registry: ResourceRegistry): ServiceEndpointSource {
  return {
    async getService(namespace, name) {
      const store = registry.lookup("", "v1", "services");
      if (!store) return undefined;
      try {
        return await store.get(namespace, name);
      } catch (err) {
        if ((err as { code?: number }).code === 404) return undefined;
        throw err;
      }
    },
    async listEndpointSlices(namespace, serviceName) {
      const store = registry.lookup("discovery.k8s.io", "v1", "endpointslices");
      if (!store) return [];
      const list = await store.list(namespace, {
        plan: { mode: "any" },
        labels: (labels) => labels[SERVICE_NAME_LABEL] === serviceName,
      });
      return list.items;
    },
  };
}
