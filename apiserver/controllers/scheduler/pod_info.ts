/**
 * The scheduler's view of a pod and of a node: what the filters and scores read, computed once
 * when the change feed delivers the object (requests, host ports, labels, taints, allocatable).
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { isObject } from "../../../shared/json/is_object.ts";
import { nodeAllocatable, podRequests, type Resources } from "./resources.ts";

type Obj = Record<string, unknown>;

/** A host port a pod uses: protocol, host IP and port. */
export interface HostPort {
  protocol: string;
  hostIP: string;
  port: number;
}

/** A pod as the scheduler sees it. */
export interface PodInfo {
  /** `<namespace>/<name>`. */
  key: string;
  namespace: string;
  name: string;
  uid: string;
  labels: Record<string, string>;
  nodeName: string;
  schedulerName: string;
  priority: number;
  requests: Resources;
  hostPorts: HostPort[];
  spec: Obj;
  terminating: boolean;
  /** Whether the pod has finished (Succeeded or Failed): it holds no resources. */
  finished: boolean;
  /** Whether the pod has required pod anti-affinity terms (other pods must keep away). */
  hasAntiAffinity: boolean;
  object: KubeObject;
}

/** A taint of a node. */
export interface Taint {
  key: string;
  value?: string;
  effect: string;
}

/** A node as the scheduler sees it, with the pods bound to it. */
export interface NodeInfo {
  name: string;
  labels: Record<string, string>;
  unschedulable: boolean;
  taints: Taint[];
  allocatable: Resources;
  /** The sum of the requests of the pods bound to it. */
  requested: Resources;
  pods: Map<string, PodInfo>;
  /** How many of its pods have required anti-affinity (most nodes: none, skipped). */
  antiAffinityPods: number;
  object: KubeObject;
}

const arr = (v: unknown): Obj[] => Array.isArray(v) ? v.filter(isObject) : [];

/** The host ports of a pod's containers (and init containers), as kube's NodePorts reads them. */
function hostPortsOf(spec: Obj): HostPort[] {
  const out: HostPort[] = [];
  for (const c of [...arr(spec.initContainers), ...arr(spec.containers)]) {
    for (const p of arr(c.ports)) {
      const port = Number(p.hostPort ?? 0);
      if (port <= 0) continue;
      out.push({
        protocol: String(p.protocol ?? "TCP"),
        hostIP: String(p.hostIP || "0.0.0.0"),
        port,
      });
    }
  }
  return out;
}

function hasRequiredAntiAffinity(spec: Obj): boolean {
  const affinity = isObject(spec.affinity) ? spec.affinity : {};
  const anti = isObject(affinity.podAntiAffinity) ? affinity.podAntiAffinity : {};
  return arr(anti.requiredDuringSchedulingIgnoredDuringExecution).length > 0;
}

/** Reads a pod object. */
export function podInfoOf(pod: KubeObject): PodInfo {
  const spec = isObject(pod.spec) ? pod.spec : {};
  const status = isObject(pod.status) ? pod.status : {};
  const phase = status.phase;
  return {
    key: `${pod.metadata.namespace}/${pod.metadata.name}`,
    namespace: pod.metadata.namespace ?? "",
    name: pod.metadata.name ?? "",
    uid: pod.metadata.uid ?? "",
    labels: pod.metadata.labels ?? {},
    nodeName: typeof spec.nodeName === "string" ? spec.nodeName : "",
    schedulerName: typeof spec.schedulerName === "string" && spec.schedulerName
      ? spec.schedulerName
      : "default-scheduler",
    priority: typeof spec.priority === "number" ? spec.priority : 0,
    requests: podRequests(spec),
    hostPorts: hostPortsOf(spec),
    spec,
    terminating: !!pod.metadata.deletionTimestamp,
    finished: phase === "Succeeded" || phase === "Failed",
    hasAntiAffinity: hasRequiredAntiAffinity(spec),
    object: pod,
  };
}

/** Reads a node object (its pods are added by the cache). */
export function nodeInfoOf(node: KubeObject): NodeInfo {
  const spec = isObject(node.spec) ? node.spec : {};
  return {
    name: node.metadata.name ?? "",
    labels: node.metadata.labels ?? {},
    unschedulable: spec.unschedulable === true,
    taints: arr(spec.taints).map((t) => ({
      key: String(t.key ?? ""),
      value: typeof t.value === "string" ? t.value : undefined,
      effect: String(t.effect ?? ""),
    })),
    allocatable: nodeAllocatable(node),
    requested: {},
    pods: new Map(),
    antiAffinityPods: 0,
    object: node,
  };
}
