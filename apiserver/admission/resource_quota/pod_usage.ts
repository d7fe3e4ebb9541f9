/**
 * What a pod is charged for quota, as kube's pod evaluator (pkg/quota/v1/evaluator/core):
 * always `count/pods`; while it is not terminal, `pods` and its compute resources (the pod's
 * effective requests and limits: containers summed, init containers at their peak with the
 * sidecars started before them, plus overhead), hugepages and extended resources; and the
 * scopes a pod is in (Terminating, BestEffort, PriorityClass, CrossNamespacePodAffinity).
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { isObject } from "../../../shared/json/is_object.ts";
import { add, max, one, parseResourceList, type ResourceList } from "./resource_list.ts";

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => isObject(v) ? v : {};
const arr = (v: unknown): unknown[] => Array.isArray(v) ? v : [];

/** A quota scope requirement: a scope name, an operator and values. */
export interface ScopeSelector {
  scopeName: string;
  operator: string;
  values?: string[];
}

/** The compute resources a pod is charged for. */
export const POD_RESOURCES = [
  "count/pods",
  "cpu",
  "memory",
  "ephemeral-storage",
  "requests.cpu",
  "requests.memory",
  "requests.ephemeral-storage",
  "limits.cpu",
  "limits.memory",
  "limits.ephemeral-storage",
  "pods",
];

/** Whether a resource name is native (no domain, or a `kubernetes.io/` one). */
function isNative(name: string): boolean {
  return !name.includes("/") || name.includes("kubernetes.io/");
}

/** Whether a quota resource name is an extended resource's (`requests.example.com/gpu`). */
export function isExtendedQuotaName(name: string): boolean {
  return !isNative(name) && name.startsWith("requests.");
}

/** Whether a container resource is an extended resource (`example.com/gpu`). */
function isExtendedResource(name: string): boolean {
  return !isNative(name) && !name.startsWith("requests.");
}

/** The quota usage of a container's or pod's requests and limits (kube's podComputeUsageHelper). */
export function computeUsage(requests: ResourceList, limits: ResourceList): ResourceList {
  const out: ResourceList = new Map([["pods", one()]]);
  for (const r of ["cpu", "memory", "ephemeral-storage"]) {
    const req = requests.get(r), lim = limits.get(r);
    if (req) out.set(r, req).set(`requests.${r}`, req);
    if (lim) out.set(`limits.${r}`, lim);
  }
  for (const [r, q] of requests) {
    if (r.startsWith("hugepages-")) out.set(r, q).set(`requests.${r}`, q);
    if (isExtendedResource(r)) out.set(`requests.${r}`, q);
  }
  return out;
}

/** A container's requests or limits. */
function resourcesOf(c: unknown, which: "requests" | "limits"): ResourceList {
  return parseResourceList(obj(obj(obj(c).resources)[which]));
}

/** A pod's effective requests or limits (kube's PodRequests / PodLimits). */
export function podResources(spec: Obj, which: "requests" | "limits"): ResourceList {
  let total: ResourceList = new Map();
  for (const c of arr(spec.containers)) total = add(total, resourcesOf(c, which));
  let sidecars: ResourceList = new Map(), initPeak: ResourceList = new Map();
  for (const c of arr(spec.initContainers)) {
    let own = resourcesOf(c, which);
    if (obj(c).restartPolicy === "Always") {
      total = add(total, own);
      sidecars = add(sidecars, own);
      own = sidecars;
    } else own = add(own, sidecars);
    initPeak = max(initPeak, own);
  }
  total = max(total, initPeak);
  const overhead = parseResourceList(spec.overhead);
  for (const [r, q] of overhead) {
    if (which === "requests" || total.has(r)) total = add(total, new Map([[r, q]]));
  }
  return total;
}

/** Whether the pod still counts against compute quota (not terminal, not stuck deleting). */
export function chargedForCompute(pod: KubeObject, now: number): boolean {
  const phase = obj(pod.status).phase;
  if (phase === "Failed" || phase === "Succeeded") return false;
  const { deletionTimestamp, deletionGracePeriodSeconds } = pod.metadata;
  if (deletionTimestamp && deletionGracePeriodSeconds != null) {
    const end = Date.parse(deletionTimestamp) + deletionGracePeriodSeconds * 1000;
    if (now > end) return false;
  }
  return true;
}

/** The usage of a pod (kube's PodUsageFunc). */
export function podUsage(pod: KubeObject, now: number): ResourceList {
  const out: ResourceList = new Map([["count/pods", one()]]);
  if (!chargedForCompute(pod, now)) return out;
  const spec = obj(pod.spec);
  const usage = computeUsage(podResources(spec, "requests"), podResources(spec, "limits"));
  return add(out, usage);
}

/** Whether the pod is BestEffort: no container requests or limits cpu or memory. */
export function isBestEffort(spec: Obj): boolean {
  const containers = [...arr(spec.initContainers), ...arr(spec.containers)];
  return containers.every((c) =>
    (["requests", "limits"] as const).every((w) => {
      const list = resourcesOf(c, w);
      return ["cpu", "memory"].every((r) => !list.get(r) || list.get(r)!.sign() === 0);
    })
  );
}

function crossNamespaceTerms(terms: unknown[], weighted: boolean): boolean {
  return terms.some((t) => {
    const term = weighted ? obj(obj(t).podAffinityTerm) : obj(t);
    return arr(term.namespaces).length > 0 || term.namespaceSelector != null;
  });
}

/** Whether the pod's (anti-)affinity names other namespaces. */
export function usesCrossNamespaceAffinity(spec: Obj): boolean {
  const affinity = obj(spec.affinity);
  return [affinity.podAffinity, affinity.podAntiAffinity].some((a) =>
    a != null && (
      crossNamespaceTerms(arr(obj(a).requiredDuringSchedulingIgnoredDuringExecution), false) ||
      crossNamespaceTerms(arr(obj(a).preferredDuringSchedulingIgnoredDuringExecution), true)
    )
  );
}

/** Whether a pod is in a quota scope (kube's podMatchesScopeFunc). */
export function podMatchesScope(s: ScopeSelector, pod: KubeObject): boolean {
  const spec = obj(pod.spec);
  const deadline = spec.activeDeadlineSeconds;
  const terminating = typeof deadline === "number" && deadline >= 0;
  switch (s.scopeName) {
    case "Terminating":
      return terminating;
    case "NotTerminating":
      return !terminating;
    case "BestEffort":
      return isBestEffort(spec);
    case "NotBestEffort":
      return !isBestEffort(spec);
    case "PriorityClass":
      return priorityClassMatches(
        s,
        typeof spec.priorityClassName === "string" ? spec.priorityClassName : "",
      );
    case "CrossNamespacePodAffinity":
      return usesCrossNamespaceAffinity(spec);
  }
  return false;
}

/** A PriorityClass scope selector against the pod's class name ("" = none). */
function priorityClassMatches(s: ScopeSelector, name: string): boolean {
  const values = s.values ?? [];
  switch (s.operator) {
    case "Exists":
      return name !== "";
    case "DoesNotExist":
      return name === "";
    case "In":
      return name !== "" && values.includes(name);
    case "NotIn":
      return name === "" || !values.includes(name);
  }
  return false;
}

/** A quota's scopes as selectors: `spec.scopes` (Exists) then `spec.scopeSelector`. */
export function scopeSelectorsOf(quota: KubeObject): ScopeSelector[] {
  const spec = obj(quota.spec);
  const out: ScopeSelector[] = arr(spec.scopes).map((s) => ({
    scopeName: String(s),
    operator: "Exists",
  }));
  for (const e of arr(obj(spec.scopeSelector).matchExpressions)) {
    const x = obj(e);
    out.push({
      scopeName: String(x.scopeName ?? ""),
      operator: String(x.operator ?? ""),
      values: arr(x.values).map(String),
    });
  }
  return out;
}
