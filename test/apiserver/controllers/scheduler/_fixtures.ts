/** Pods and nodes for the scheduler's unit tests. */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { ClusterCache } from "../../../../apiserver/controllers/scheduler/cluster_cache.ts";
import {
  type NodeInfo,
  type PodInfo,
  podInfoOf,
} from "../../../../apiserver/controllers/scheduler/pod_info.ts";

type Obj = Record<string, unknown>;

let uid = 0;

/** A pod with `spec` over one container requesting `cpu`. */
export function pod(
  name: string,
  spec: Obj = {},
  opts: { cpu?: string; labels?: Record<string, string>; ns?: string } = {},
): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: opts.ns ?? "default", uid: `u${++uid}`, labels: opts.labels },
    spec: {
      containers: [{
        name: "c",
        image: "x",
        resources: opts.cpu ? { requests: { cpu: opts.cpu } } : {},
      }],
      ...spec,
    },
  } as KubeObject;
}

/** A node with allocatable cpu (default 4), 110 pods, and the given labels and spec. */
export function node(
  name: string,
  opts: { cpu?: string; labels?: Record<string, string>; spec?: Obj; pods?: string } = {},
): KubeObject {
  const alloc = { cpu: opts.cpu ?? "4", memory: "8Gi", pods: opts.pods ?? "110" };
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name, labels: { "kubernetes.io/hostname": name, ...opts.labels } },
    spec: opts.spec ?? {},
    status: { allocatable: alloc, capacity: alloc },
  } as KubeObject;
}

/** A cache holding `nodes` and `pods` (pods with `spec.nodeName` are bound to it). */
export function cluster(nodes: KubeObject[], pods: KubeObject[] = []): ClusterCache {
  const c = new ClusterCache();
  for (const n of nodes) c.setNode(n.metadata.name!, n);
  for (const p of pods) c.setPod(`${p.metadata.namespace}/${p.metadata.name}`, p);
  return c;
}

/** The PodInfo of a pod object. */
export function info(p: KubeObject): PodInfo {
  return podInfoOf(p);
}

/** The node named `name` of the cache. */
export function nodeIn(c: ClusterCache, name: string): NodeInfo {
  return c.node(name)!;
}
