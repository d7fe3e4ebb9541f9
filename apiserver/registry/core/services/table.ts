/** The Table columns of Services, as kubectl prints them (kube's printService). */
import type { TableColumns } from "../../generic/kind.ts";
import {
  AGE_COLUMN,
  ageOf as age,
  column as col,
  listOf as list,
  NAME_COLUMN,
  objectOf as obj,
} from "../../generic/table_columns.ts";

/** `port/proto` or `port:nodePort/proto`, comma-separated. */
function portsCell(ports: Record<string, unknown>[]): string {
  return ports.map((p) =>
    p.nodePort ? `${p.port}:${p.nodePort}/${p.protocol}` : `${p.port}/${p.protocol}`
  ).join(",");
}

/** The load balancer's ingress IPs or host names, comma-separated. */
function ingressCell(status: Record<string, unknown>): string {
  return list(obj(status.loadBalancer).ingress).map((i) => String(i.ip || i.hostname || ""))
    .filter((s) => s !== "").join(",");
}

function externalIP(spec: Record<string, unknown>, status: Record<string, unknown>): string {
  const external = Array.isArray(spec.externalIPs) ? spec.externalIPs.map(String) : [];
  switch (spec.type) {
    case "ClusterIP":
    case "NodePort":
      return external.length > 0 ? external.join(",") : "<none>";
    case "LoadBalancer": {
      const lb = ingressCell(status);
      if (external.length > 0) return [...(lb ? lb.split(",") : []), ...external].join(",");
      return lb || "<pending>";
    }
    case "ExternalName":
      return String(spec.externalName ?? "");
  }
  return "<unknown>";
}

/** `k=v` pairs sorted by key, or `<none>`. */
export function formatLabels(m: unknown): string {
  const entries = Object.entries(obj(m)).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0);
  return entries.length === 0 ? "<none>" : entries.map(([k, v]) => `${k}=${v}`).join(",");
}

/** Service: Name, Type, Cluster-IP, External-IP, Port(s), Age; wide: Selector. */
export const SERVICE_COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    col(
      "Type",
      "string",
      "How the Service is exposed: ClusterIP, NodePort, LoadBalancer or ExternalName.",
    ),
    col("Cluster-IP", "string", "The Service's virtual IP address within the cluster."),
    col("External-IP", "string", "Addresses outside the cluster the Service answers on."),
    col("Port(s)", "string", "The ports the Service exposes."),
    AGE_COLUMN,
    col("Selector", "string", "The labels of the pods the Service routes to.", 1),
  ],
  cells(o, now) {
    const spec = obj(o.spec), status = obj(o.status);
    const ips = Array.isArray(spec.clusterIPs) ? spec.clusterIPs : [];
    return [
      o.metadata?.name ?? "",
      String(spec.type ?? ""),
      ips.length > 0 ? String(ips[0]) : "<none>",
      externalIP(spec, status),
      portsCell(list(spec.ports)) || "<none>",
      age(o, now),
      formatLabels(spec.selector),
    ];
  },
};
