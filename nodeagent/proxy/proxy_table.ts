/**
 * What the service proxy forwards, computed from Services and EndpointSlices as kube-proxy
 * does: one {@link ServicePortRule} per Service port, whose endpoints are the ready addresses
 * of the EndpointSlices labelled `kubernetes.io/service-name=<service>` in the Service's
 * namespace, on the slice port of the same name. Pure, so both proxy modes (nftables and
 * user space) and the tests share it.
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";

/** The label that ties an EndpointSlice to its Service. */
export const SERVICE_NAME_LABEL = "kubernetes.io/service-name";

/** The default ClientIP affinity timeout (kube's `DefaultClientIPServiceAffinitySeconds`). */
export const DEFAULT_AFFINITY_SECONDS = 10800;

/** One backend address. */
export interface Endpoint {
  ip: string;
  port: number;
}

/** How one Service port is forwarded. */
export interface ServicePortRule {
  /** `namespace/name:portName` (kube-proxy's ServicePortName; `:` alone for an unnamed port). */
  name: string;
  protocol: "TCP" | "UDP";
  /** The Service's cluster IPs (empty for headless Services). */
  clusterIPs: string[];
  /** The Service port. */
  port: number;
  /** The Service's `targetPort` when it is a number. */
  targetPort?: number;
  /** The node port (NodePort and LoadBalancer Services that have one). */
  nodePort?: number;
  /** Ready endpoints, sorted, without duplicates. */
  endpoints: Endpoint[];
  /** With `sessionAffinity: ClientIP`, how long a client sticks to its endpoint. */
  affinitySeconds?: number;
}

type Obj = Record<string, unknown>;
type SlicePort = { name?: string; port?: number; protocol?: string };
type SliceEndpoint = { addresses?: string[]; conditions?: { ready?: boolean } };

/** The rules of all Services, sorted by name; ExternalName Services and SCTP ports are skipped. */
export function computeProxyTable(
  services: readonly KubeObject[],
  slices: readonly KubeObject[],
): ServicePortRule[] {
  const byService = new Map<string, KubeObject[]>();
  for (const s of slices) {
    const svc = s.metadata.labels?.[SERVICE_NAME_LABEL];
    if (!svc || s.metadata.deletionTimestamp) continue;
    const key = `${s.metadata.namespace ?? ""}/${svc}`;
    byService.set(key, [...(byService.get(key) ?? []), s]);
  }
  const out: ServicePortRule[] = [];
  for (const svc of services) {
    const key = `${svc.metadata.namespace ?? ""}/${svc.metadata.name}`;
    out.push(...serviceRules(svc, key, byService.get(key) ?? []));
  }
  return out.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

/** The rules of one Service's ports. */
function serviceRules(svc: KubeObject, key: string, slices: KubeObject[]): ServicePortRule[] {
  const spec = (svc.spec ?? {}) as Obj;
  if (spec.type === "ExternalName") return [];
  const clusterIPs = clusterIPsOf(spec);
  const affinity = spec.sessionAffinity === "ClientIP"
    ? Number(
      ((spec.sessionAffinityConfig as Obj | undefined)?.clientIP as Obj | undefined)
        ?.timeoutSeconds ?? DEFAULT_AFFINITY_SECONDS,
    )
    : undefined;
  const out: ServicePortRule[] = [];
  for (const p of (spec.ports ?? []) as Obj[]) {
    const protocol = String(p.protocol ?? "TCP");
    if (protocol !== "TCP" && protocol !== "UDP") continue;
    const portName = String(p.name ?? "");
    const nodePort = Number(p.nodePort ?? 0);
    const rule: ServicePortRule = {
      name: `${key}:${portName}`,
      protocol,
      clusterIPs,
      port: Number(p.port),
      endpoints: readyEndpoints(slices, portName, protocol),
    };
    if (nodePort > 0 && spec.type !== "ClusterIP") rule.nodePort = nodePort;
    const target = p.targetPort ?? p.port;
    if (typeof target === "number") rule.targetPort = target;
    if (affinity !== undefined) rule.affinitySeconds = affinity;
    out.push(rule);
  }
  return out;
}

/** `spec.clusterIPs` (else `spec.clusterIP`), without `None`. */
function clusterIPsOf(spec: Obj): string[] {
  const ips = Array.isArray(spec.clusterIPs) && spec.clusterIPs.length
    ? spec.clusterIPs as string[]
    : typeof spec.clusterIP === "string" && spec.clusterIP
    ? [spec.clusterIP]
    : [];
  return ips.filter((ip) => ip && ip !== "None");
}

/**
 * The ready addresses of the slices on the port named `portName` with `protocol`; an endpoint
 * whose `ready` condition is unset counts as ready (the EndpointSlice API's rule).
 */
export function readyEndpoints(
  slices: readonly KubeObject[],
  portName: string,
  protocol: string,
): Endpoint[] {
  const seen = new Map<string, Endpoint>();
  for (const s of slices) {
    const o = s as unknown as Obj;
    if (o.addressType === "FQDN") continue;
    const port = ((o.ports ?? []) as SlicePort[]).find((p) =>
      (p.name ?? "") === portName && (p.protocol ?? "TCP") === protocol
    );
    if (!port?.port) continue;
    for (const e of (o.endpoints ?? []) as SliceEndpoint[]) {
      if (e.conditions?.ready === false) continue;
      for (const ip of e.addresses ?? []) seen.set(`${ip}:${port.port}`, { ip, port: port.port });
    }
  }
  return [...seen.values()].sort((a, b) => a.ip < b.ip ? -1 : a.ip > b.ip ? 1 : a.port - b.port);
}
