/**
 * The quota evaluators, as kube's (pkg/quota/v1/evaluator/core and the generic object count
 * evaluator): for a group/resource, which operations it charges, which quota resource names it
 * tracks, which scopes match an object, what an object is charged, and the constraints a
 * quota puts on an object (pods must name requests/limits for cpu and memory the quota limits).
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { isObject } from "../../../shared/json/is_object.ts";
import {
  computeUsage,
  isExtendedQuotaName,
  POD_RESOURCES,
  podMatchesScope,
  podUsage,
  type ScopeSelector,
} from "./pod_usage.ts";
import { one, parseResourceList, type ResourceList } from "./resource_list.ts";
import { Quantity } from "../../../shared/api/quantity.ts";

/** What an evaluator is asked about a write. */
export interface QuotaWrite {
  operation: "CREATE" | "UPDATE" | "DELETE" | "CONNECT";
  subresource: string;
  object?: KubeObject;
  oldObject?: KubeObject;
}

/** Measures quota usage of one group/resource. */
export interface Evaluator {
  group: string;
  resource: string;
  /** Whether a write of this kind can change usage. */
  handles(w: QuotaWrite): boolean;
  /** The quota resource names, of `names`, this evaluator tracks. */
  matchingResources(names: string[]): string[];
  /** Whether an object is in a scope (only pods have scopes). */
  matchesScope(s: ScopeSelector, o: KubeObject): boolean;
  /** Why the object does not satisfy the quota's `required` resources, or undefined. */
  constraints(required: string[], o: KubeObject): string | undefined;
  /** What the object is charged; `now` is the time in ms. */
  usage(o: KubeObject, now: number): ResourceList;
}

const obj = (v: unknown): Record<string, unknown> => isObject(v) ? v : {};

/** `count/<resource>` for the core group, `count/<resource>.<group>` otherwise. */
export function objectCountName(group: string, resource: string): string {
  return group ? `count/${resource}.${group}` : `count/${resource}`;
}

/** The object count evaluator any group/resource gets: creates are charged 1. */
export function objectCountEvaluator(group: string, resource: string, alias = ""): Evaluator {
  const names = [objectCountName(group, resource), ...(alias ? [alias] : [])];
  return {
    group,
    resource,
    handles: (w) => w.operation === "CREATE",
    matchingResources: (input) => input.filter((n) => names.includes(n)),
    matchesScope: () => false,
    constraints: () => undefined,
    usage: () => new Map(names.map((n) => [n, one()])),
  };
}

/** The resources whose requests/limits a pod must name when a quota limits them. */
const VALIDATED = [
  "cpu",
  "memory",
  "requests.cpu",
  "requests.memory",
  "limits.cpu",
  "limits.memory",
];

function podConstraints(required: string[], pod: KubeObject): string | undefined {
  const needed = required.filter((r) => VALIDATED.includes(r));
  const missing = new Map<string, Set<string>>();
  const spec = obj(pod.spec);
  for (
    const c of [
      ...(spec.containers as unknown[] ?? []),
      ...(spec.initContainers as unknown[] ?? []),
    ]
  ) {
    const resources = obj(obj(c).resources);
    const has = computeUsage(
      parseResourceList(resources.requests),
      parseResourceList(resources.limits),
    );
    for (const r of needed) {
      if (has.has(r)) continue;
      if (!missing.has(r)) missing.set(r, new Set());
      missing.get(r)!.add(String(obj(c).name ?? ""));
    }
  }
  if (missing.size === 0) return undefined;
  const parts = [...missing.keys()].sort().map((r) =>
    `${r} for: ${[...missing.get(r)!].sort().join(",")}`
  );
  return `must specify ${parts.join("; ")}`;
}

/** Pods: created pods are charged (updates never change a pod's charge). */
export function podEvaluator(): Evaluator {
  return {
    group: "",
    resource: "pods",
    handles: (w) => w.subresource === "" && w.operation === "CREATE",
    matchingResources: (input) =>
      input.filter((n) =>
        POD_RESOURCES.includes(n) || n.startsWith("hugepages-") ||
        n.startsWith("requests.hugepages-") || isExtendedQuotaName(n)
      ),
    matchesScope: podMatchesScope,
    constraints: podConstraints,
    usage: podUsage,
  };
}

const SERVICE_RESOURCES = [
  "count/services",
  "services",
  "services.loadbalancers",
  "services.nodeports",
];

function serviceUsage(svc: KubeObject): ResourceList {
  const spec = obj(svc.spec);
  const ports = Array.isArray(spec.ports) ? spec.ports.map(obj) : [];
  const count = (n: number) => new Quantity(BigInt(n), 0);
  const out: ResourceList = new Map([
    ["count/services", one()],
    ["services", one()],
    ["services.loadbalancers", count(0)],
    ["services.nodeports", count(0)],
  ]);
  if (spec.type === "NodePort") out.set("services.nodeports", count(ports.length));
  if (spec.type === "LoadBalancer") {
    const explicitOnly = spec.allocateLoadBalancerNodePorts === false;
    const nodePorts = explicitOnly ? ports.filter((p) => p.nodePort).length : ports.length;
    out.set("services.nodeports", count(nodePorts)).set("services.loadbalancers", one());
  }
  return out;
}

/** Services: creates and updates (a type change changes the charge). */
export function serviceEvaluator(): Evaluator {
  return {
    group: "",
    resource: "services",
    handles: (w) => w.subresource === "" && (w.operation === "CREATE" || w.operation === "UPDATE"),
    matchingResources: (input) => input.filter((n) => SERVICE_RESOURCES.includes(n)),
    matchesScope: () => false,
    constraints: () => undefined,
    usage: serviceUsage,
  };
}

const STORAGE_CLASS_SUFFIX = ".storageclass.storage.k8s.io/";

/** A claim's storage request, rounded up to whole bytes (the allocated size when larger). */
function claimStorage(pvc: KubeObject): Quantity | undefined {
  const roundUp = (q: Quantity) =>
    q.isInteger()
      ? q
      : new Quantity((q.n + 10n ** BigInt(q.scale) - 1n) / 10n ** BigInt(q.scale), 0, q.format);
  const requested = parseResourceList(obj(obj(obj(pvc.spec).resources).requests)).get("storage");
  const allocated = parseResourceList(obj(obj(pvc.status).allocatedResources)).get("storage");
  if (!requested) return undefined;
  return roundUp(allocated && allocated.compareTo(requested) > 0 ? allocated : requested);
}

function claimUsage(pvc: KubeObject): ResourceList {
  const out: ResourceList = new Map([["persistentvolumeclaims", one()], [
    "count/persistentvolumeclaims",
    one(),
  ]]);
  const spec = obj(pvc.spec);
  const beta = obj(pvc.metadata.annotations)["volume.beta.kubernetes.io/storage-class"];
  const cls = typeof beta === "string"
    ? beta
    : typeof spec.storageClassName === "string"
    ? spec.storageClassName
    : "";
  if (cls) out.set(`${cls}${STORAGE_CLASS_SUFFIX}persistentvolumeclaims`, one());
  const storage = claimStorage(pvc);
  if (storage) {
    out.set("requests.storage", storage);
    if (cls) out.set(`${cls}${STORAGE_CLASS_SUFFIX}requests.storage`, storage);
  }
  return out;
}

/** PersistentVolumeClaims: creates and updates (a resize changes the charge). */
export function claimEvaluator(): Evaluator {
  return {
    group: "",
    resource: "persistentvolumeclaims",
    handles: (w) => w.subresource === "" && (w.operation === "CREATE" || w.operation === "UPDATE"),
    matchingResources: (input) =>
      input.filter((n) =>
        ["count/persistentvolumeclaims", "persistentvolumeclaims", "requests.storage"].includes(
          n,
        ) ||
        n.endsWith(`${STORAGE_CLASS_SUFFIX}persistentvolumeclaims`) ||
        n.endsWith(`${STORAGE_CLASS_SUFFIX}requests.storage`)
      ),
    matchesScope: () => false,
    constraints: () => undefined,
    usage: claimUsage,
  };
}

/** The evaluators with usage of their own, and the object counts with legacy names. */
function builtinEvaluators(): Evaluator[] {
  return [
    podEvaluator(),
    serviceEvaluator(),
    claimEvaluator(),
    objectCountEvaluator("", "configmaps", "configmaps"),
    objectCountEvaluator("", "resourcequotas", "resourcequotas"),
    objectCountEvaluator("", "replicationcontrollers", "replicationcontrollers"),
    objectCountEvaluator("", "secrets", "secrets"),
  ];
}

/** Finds the evaluator of a group/resource (an object count one for any other kind). */
export class EvaluatorRegistry {
  readonly #byResource = new Map<string, Evaluator>();

  constructor() {
    for (const e of builtinEvaluators()) this.#byResource.set(`${e.group}/${e.resource}`, e);
  }

  /** The evaluator for `group`/`resource`, made (object count) on first use. */
  get(group: string, resource: string): Evaluator {
    const key = `${group}/${resource}`;
    let e = this.#byResource.get(key);
    if (!e) this.#byResource.set(key, e = objectCountEvaluator(group, resource));
    return e;
  }

  /** Every evaluator made so far. */
  all(): Evaluator[] {
    return [...this.#byResource.values()];
  }
}

/** Whether a quota selects an object: it tracks a resource of the evaluator, and every scope matches. */
export function quotaMatches(
  e: Evaluator,
  hardNames: string[],
  scopes: ScopeSelector[],
  o: KubeObject,
): boolean {
  return e.matchingResources(hardNames).length > 0 && scopes.every((s) => e.matchesScope(s, o));
}
