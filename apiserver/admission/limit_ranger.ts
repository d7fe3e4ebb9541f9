/**
 * LimitRanger, as kube's plugin: the namespace's LimitRanges give a new pod's containers and
 * init containers their default limits (`default`) and requests (`defaultRequest`) of the
 * Container items (recorded in the `kubernetes.io/limit-ranger` annotation), then the pod is
 * checked against the Container and Pod items' min, max and maxLimitRequestRatio, and a claim
 * (created or updated) against the PersistentVolumeClaim items' min and max; a violation is
 * 403 with kube's messages. Pod updates and subresources are not checked, as in kube.
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../shared/errors/status_error.ts";
import { isObject } from "../../shared/json/is_object.ts";
import type { AdmissionAttributes, AdmissionPlugin } from "../registry/generic/admission.ts";
import type { Store } from "../registry/generic/store.ts";
import {
  limitRequestRatioConstraint,
  maxConstraint,
  maxRequestConstraint,
  minConstraint,
  type Resources,
  resourcesOf,
} from "./limit_constraints.ts";

/** The annotation naming what the plugin defaulted. */
export const LIMIT_RANGER_ANNOTATION = "kubernetes.io/limit-ranger";

type Item = Record<string, unknown>;
type Container = { name?: string; resources?: Record<string, unknown> };

/** Builds the plugin; `limitRanges` is the LimitRange store. */
export function limitRanger(limitRanges: () => Store | undefined): AdmissionPlugin {
  const itemsOf = async (a: Readonly<AdmissionAttributes>): Promise<Item[]> => {
    const list = await limitRanges()?.list(a.namespace, { plan: { mode: "latest" } });
    return (list?.items ?? []).flatMap((lr) => {
      const spec = isObject(lr.spec) ? lr.spec : {};
      return Array.isArray(spec.limits) ? spec.limits.filter(isObject) : [];
    });
  };
  return {
    name: "LimitRanger",
    async admit(a) {
      if (!applies(a) || a.kind.plural !== "pods") return;
      const items = await itemsOf(a);
      if (items.length > 0) defaultPod(a.object!, items);
    },
    async validate(a) {
      if (!applies(a)) return;
      const items = await itemsOf(a);
      if (items.length === 0) return;
      const errors = a.kind.plural === "pods"
        ? checkPod(a.object!, items)
        : checkClaim(a.object!, items);
      if (errors.length === 0) return;
      const message = errors.length === 1 ? errors[0] : `[${errors.join(", ")}]`;
      throw StatusError.forbidden({ group: "", resource: a.kind.plural }, a.name, message);
    },
  };
}

/** Pods on create, claims on create and update; never subresources or objects being deleted. */
function applies(a: Readonly<AdmissionAttributes>): boolean {
  if (a.kind.group !== "" || a.subresource || !a.object || !isObject(a.object.spec)) return false;
  if (a.oldObject?.metadata.deletionTimestamp) return false;
  if (a.kind.plural === "pods") return a.operation === "CREATE";
  return a.kind.plural === "persistentvolumeclaims" &&
    (a.operation === "CREATE" || a.operation === "UPDATE");
}

/** Sets the Container items' defaults into every container lacking them; annotates the pod. */
function defaultPod(pod: KubeObject, items: Item[]): void {
  const limits: Record<string, unknown> = {}, requests: Record<string, unknown> = {};
  for (const item of items) {
    if (item.type !== "Container") continue;
    if (isObject(item.defaultRequest)) Object.assign(requests, item.defaultRequest);
    if (isObject(item.default)) Object.assign(limits, item.default);
  }
  if (Object.keys(limits).length === 0 && Object.keys(requests).length === 0) return;
  const spec = pod.spec as Record<string, unknown>;
  const notes: string[] = [];
  for (const [key, label] of [["containers", "container"], ["initContainers", "init container"]]) {
    const containers = Array.isArray(spec[key]) ? spec[key] as Container[] : [];
    for (const c of containers) {
      const res = c.resources = isObject(c.resources) ? c.resources : {};
      const set = (field: "limits" | "requests", defaults: Record<string, unknown>) => {
        const own = isObject(res[field]) ? res[field] as Record<string, unknown> : {};
        const added = Object.keys(defaults).filter((k) => own[k] === undefined).sort();
        for (const k of added) own[k] = defaults[k];
        if (Object.keys(own).length > 0) res[field] = own;
        return added;
      };
      const req = set("requests", requests), lim = set("limits", limits);
      if (req.length) notes.push(`${req.join(", ")} request for ${label} ${c.name}`);
      if (lim.length) notes.push(`${lim.join(", ")} limit for ${label} ${c.name}`);
    }
  }
  if (notes.length === 0) return;
  pod.metadata.annotations = {
    ...(pod.metadata.annotations ?? {}),
    [LIMIT_RANGER_ANNOTATION]: `LimitRanger plugin set: ${notes.join("; ")}`,
  };
}

/** The requests and limits of a container. */
function containerResources(c: Container): { requests: Resources; limits: Resources } {
  const res = isObject(c.resources) ? c.resources : {};
  return { requests: resourcesOf(res.requests), limits: resourcesOf(res.limits) };
}

/** The checks of one item's min, max and ratio against requests and limits. */
function checkItem(item: Item, type: string, requests: Resources, limits: Resources): string[] {
  const errs: (string | undefined)[] = [];
  const each = (field: string, fn: typeof minConstraint) => {
    for (const [k, v] of [...resourcesOf(item[field])].sort(([a], [b]) => a < b ? -1 : 1)) {
      errs.push(fn(type, k, v, requests, limits));
    }
  };
  each("min", minConstraint);
  each("max", maxConstraint);
  each("maxLimitRequestRatio", limitRequestRatioConstraint);
  return errs.filter((e): e is string => e !== undefined);
}

/** A pod's Container and Pod item violations. */
function checkPod(pod: KubeObject, items: Item[]): string[] {
  const spec = pod.spec as Record<string, unknown>;
  const containers = Array.isArray(spec.containers) ? spec.containers as Container[] : [];
  const inits = Array.isArray(spec.initContainers) ? spec.initContainers as Container[] : [];
  const errors: string[] = [];
  for (const item of items) {
    if (item.type === "Container") {
      for (const c of [...containers, ...inits]) {
        const { requests, limits } = containerResources(c);
        errors.push(...checkItem(item, "Container", requests, limits));
      }
    } else if (item.type === "Pod") {
      const { requests, limits } = podResources(containers, inits);
      errors.push(...checkItem(item, "Pod", requests, limits));
    }
  }
  return errors;
}

/** A pod's requests and limits: the containers' sum, or an init container's if larger. */
function podResources(containers: Container[], inits: Container[]) {
  const total = (field: "requests" | "limits") => {
    const sum: Resources = new Map();
    for (const c of containers) {
      for (const [k, q] of containerResources(c)[field]) sum.set(k, sum.get(k)?.add(q) ?? q);
    }
    for (const c of inits) {
      for (const [k, q] of containerResources(c)[field]) {
        const cur = sum.get(k);
        if (!cur || q.compareTo(cur) > 0) sum.set(k, q);
      }
    }
    return sum;
  };
  return { requests: total("requests"), limits: total("limits") };
}

/** A claim's PersistentVolumeClaim item violations (its requests; claims have no limits). */
function checkClaim(pvc: KubeObject, items: Item[]): string[] {
  const spec = pvc.spec as Record<string, unknown>;
  const requests = resourcesOf(isObject(spec.resources) ? spec.resources.requests : undefined);
  const errors: (string | undefined)[] = [];
  const type = "PersistentVolumeClaim";
  for (const item of items) {
    if (item.type !== type) continue;
    for (const [k, v] of resourcesOf(item.min)) {
      errors.push(minConstraint(type, k, v, requests, new Map()));
    }
    for (const [k, v] of resourcesOf(item.max)) {
      errors.push(maxRequestConstraint(type, k, v, requests));
    }
  }
  return errors.filter((e): e is string => e !== undefined);
}
