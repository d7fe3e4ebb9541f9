/**
 * The graph the Node authorizer consults: which Secrets, ConfigMaps, PersistentVolumeClaims
 * and ServiceAccounts the pods bound to each node reference. Kept current from a feed of pods.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import type { ResourceEvent } from "./resource_feed.ts";

/** The storage key prefix of pods. */
export const POD_PREFIX = "/registry/core/pods/";

/** Kinds of objects a pod references. */
export type ReferencedKind =
  | "secrets"
  | "configmaps"
  | "persistentvolumeclaims"
  | "serviceaccounts";

interface PodRefs {
  node: string;
  refs: string[];
}

type Obj = Record<string, unknown>;

function obj(v: unknown): Obj {
  return v && typeof v === "object" && !Array.isArray(v) ? v as Obj : {};
}

function arr(v: unknown): Obj[] {
  return Array.isArray(v) ? v.map(obj) : [];
}

function name(v: unknown): string {
  return typeof v === "string" ? v : "";
}

/** The `kind/namespace/name` references of a pod. */
export function podReferences(pod: KubeObject): string[] {
  const ns = pod.metadata.namespace ?? "";
  const spec = obj(pod.spec);
  const out = new Set<string>();
  const add = (kind: ReferencedKind, n: string) => {
    if (n) out.add(`${kind}/${ns}/${n}`);
  };
  add("serviceaccounts", name(spec.serviceAccountName) || name(spec.serviceAccount));
  for (const s of arr(spec.imagePullSecrets)) add("secrets", name(s.name));
  const containers = [
    ...arr(spec.containers),
    ...arr(spec.initContainers),
    ...arr(spec.ephemeralContainers),
  ];
  for (const c of containers) {
    for (const e of arr(c.env)) {
      const from = obj(e.valueFrom);
      add("secrets", name(obj(from.secretKeyRef).name));
      add("configmaps", name(obj(from.configMapKeyRef).name));
    }
    for (const e of arr(c.envFrom)) {
      add("secrets", name(obj(e.secretRef).name));
      add("configmaps", name(obj(e.configMapRef).name));
    }
  }
  for (const v of arr(spec.volumes)) {
    add("secrets", name(obj(v.secret).secretName));
    add("configmaps", name(obj(v.configMap).name));
    add("persistentvolumeclaims", name(obj(v.persistentVolumeClaim).claimName));
    for (const src of arr(obj(v.projected).sources)) {
      add("secrets", name(obj(src.secret).name));
      add("configmaps", name(obj(src.configMap).name));
    }
    for (const plugin of ["csi", "cephfs", "rbd", "flexVolume", "iscsi", "scaleIO", "storageos"]) {
      const p = obj(v[plugin]);
      add("secrets", name(obj(p.secretRef ?? p.nodePublishSecretRef).name));
    }
    const azure = obj(v.azureFile);
    add("secrets", name(azure.secretName));
  }
  return [...out];
}

/** Pods, the node each is bound to, and what each references. */
export class NodeGraph {
  /** pod id (`ns/name`) → node and references. */
  readonly #pods = new Map<string, PodRefs>();
  /** node → reference → number of pods on the node holding it. */
  readonly #byNode = new Map<string, Map<string, number>>();

  /** Applies a batch of pod events. */
  apply(events: readonly ResourceEvent[]): void {
    for (const e of events) {
      if (!e.key.startsWith(POD_PREFIX)) continue;
      const id = `${e.object.metadata.namespace}/${e.object.metadata.name}`;
      this.#remove(id);
      if (e.type === "DELETED") continue;
      const node = name(obj(e.object.spec).nodeName);
      if (!node) continue;
      const refs = podReferences(e.object);
      this.#pods.set(id, { node, refs });
      let counts = this.#byNode.get(node);
      if (!counts) this.#byNode.set(node, counts = new Map());
      counts.set(`pods/${id}`, 1);
      for (const r of refs) counts.set(r, (counts.get(r) ?? 0) + 1);
    }
  }

  #remove(id: string): void {
    const old = this.#pods.get(id);
    if (!old) return;
    this.#pods.delete(id);
    const counts = this.#byNode.get(old.node);
    if (!counts) return;
    counts.delete(`pods/${id}`);
    for (const r of old.refs) {
      const n = (counts.get(r) ?? 0) - 1;
      if (n <= 0) counts.delete(r);
      else counts.set(r, n);
    }
    if (counts.size === 0) this.#byNode.delete(old.node);
  }

  /** Whether a pod bound to `node` references `kind` `namespace/name`. */
  hasPath(node: string, kind: ReferencedKind, namespace: string, name: string): boolean {
    return (this.#byNode.get(node)?.get(`${kind}/${namespace}/${name}`) ?? 0) > 0;
  }

  /** The node a pod is bound to ("" when unknown or unbound). */
  podNode(namespace: string, name: string): string {
    return this.#pods.get(`${namespace}/${name}`)?.node ?? "";
  }
}
