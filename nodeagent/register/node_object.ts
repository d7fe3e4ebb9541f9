/**
 * The Node object the agent registers: automatic labels, addresses, capacity, allocatable,
 * nodeInfo, conditions and the daemon endpoint, as the kubelet builds it (`initialNode`).
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import type { NodeSystemInfo } from "../status/node_info.ts";
import type { NodeCondition } from "../status/node_conditions.ts";
import type { ResourceList } from "../status/node_resources.ts";

/** The kubelet's annotation telling the attach/detach controller to manage volumes. */
export const ATTACH_DETACH_ANNOTATION = "volumes.kubernetes.io/controller-managed-attach-detach";

/** A node address. */
export interface NodeAddress {
  /** `InternalIP` or `Hostname`. */
  type: "InternalIP" | "Hostname";
  /** The address. */
  address: string;
}

/** Everything the Node's status is made of. */
export interface NodeStatusParts {
  capacity: ResourceList;
  allocatable: ResourceList;
  conditions: NodeCondition[];
  addresses: NodeAddress[];
  nodeInfo: NodeSystemInfo;
  /** The agent's HTTPS port. */
  port: number;
}

/**
 * The labels the agent sets itself: `kubernetes.io/{arch,hostname,os}` and their `beta.`
 * forms (Kubernetes still sets them), then the configured labels (which may add
 * `node.kubernetes.io/instance-type`, `topology.kubernetes.io/region` and `.../zone`).
 */
export function automaticLabels(
  hostname: string,
  nodeInfo: Pick<NodeSystemInfo, "architecture" | "operatingSystem">,
  configured: Record<string, string> = {},
): Record<string, string> {
  return {
    "beta.kubernetes.io/arch": nodeInfo.architecture,
    "beta.kubernetes.io/os": nodeInfo.operatingSystem,
    "kubernetes.io/arch": nodeInfo.architecture,
    "kubernetes.io/hostname": hostname,
    "kubernetes.io/os": nodeInfo.operatingSystem,
    ...configured,
  };
}

/** The `status` block of the Node. */
export function nodeStatus(p: NodeStatusParts): Record<string, unknown> {
  return {
    capacity: p.capacity,
    allocatable: p.allocatable,
    conditions: p.conditions,
    addresses: p.addresses,
    daemonEndpoints: { kubeletEndpoint: { Port: p.port } },
    nodeInfo: p.nodeInfo,
  };
}

/** The Node to create. */
export function buildNode(
  name: string,
  labels: Record<string, string>,
  status: NodeStatusParts,
): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name,
      labels,
      annotations: { [ATTACH_DETACH_ANNOTATION]: "true" },
    },
    spec: {},
    status: nodeStatus(status),
  };
}

/**
 * The first non-loopback IPv4 address of the host (else the first IPv6, else 127.0.0.1), the
 * kubelet's default InternalIP.
 */
export function hostAddress(): string {
  let ifaces: Deno.NetworkInterfaceInfo[] = [];
  try {
    ifaces = Deno.networkInterfaces();
  } catch {
    return "127.0.0.1";
  }
  const usable = ifaces.filter((i) => !i.address.startsWith("127.") && i.address !== "::1");
  const v4 = usable.find((i) => i.family === "IPv4");
  const v6 = usable.find((i) => i.family === "IPv6" && !i.address.startsWith("fe80"));
  return v4?.address ?? v6?.address ?? "127.0.0.1";
}
