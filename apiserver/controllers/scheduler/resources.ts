/**
 * Resource amounts as the scheduler adds them: cpu in millicores, every other resource in its
 * unit (memory in bytes), read from quantities. A pod's requests are kube's
 * `resourcehelper.PodRequests`: the sum over its containers, at least the largest init
 * container (with the restartable sidecars started before it), plus the pod overhead.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { Quantity } from "../../../shared/api/quantity.ts";
import { isObject } from "../../../shared/json/is_object.ts";

/** Amounts by resource name. */
export type Resources = Record<string, number>;

type Obj = Record<string, unknown>;

/** The amount of a quantity in the scheduler's unit for `name` (cpu: millicores). */
export function amountOf(name: string, value: unknown): number {
  let q: Quantity;
  try {
    q = Quantity.parse(String(value));
  } catch {
    return 0;
  }
  const v = q.asApproximateFloat();
  return name === "cpu" ? Math.ceil(v * 1000 - 1e-9) : Math.ceil(v - 1e-9);
}

/** A resource list read into amounts. */
export function resourcesOf(list: unknown): Resources {
  const out: Resources = {};
  if (!isObject(list)) return out;
  for (const [k, v] of Object.entries(list)) out[k] = amountOf(k, v);
  return out;
}

/** Adds `b` into `a`. */
export function addInto(a: Resources, b: Resources, sign = 1): void {
  for (const [k, v] of Object.entries(b)) a[k] = (a[k] ?? 0) + sign * v;
}

function maxInto(a: Resources, b: Resources): void {
  for (const [k, v] of Object.entries(b)) a[k] = Math.max(a[k] ?? 0, v);
}

const containers = (v: unknown): Obj[] => Array.isArray(v) ? v.filter(isObject) : [];

function requestsOf(c: Obj): Resources {
  return resourcesOf(isObject(c.resources) ? c.resources.requests : undefined);
}

/** The requests of a pod spec (containers, init containers and overhead). */
export function podRequests(spec: Obj): Resources {
  const total: Resources = {};
  for (const c of containers(spec.containers)) addInto(total, requestsOf(c));
  const sidecars: Resources = {};
  const init: Resources = {};
  for (const c of containers(spec.initContainers)) {
    const req = requestsOf(c);
    if (c.restartPolicy === "Always") {
      addInto(sidecars, req);
      addInto(total, req);
      continue;
    }
    const withSidecars = { ...sidecars };
    addInto(withSidecars, req);
    maxInto(init, withSidecars);
  }
  maxInto(total, init);
  addInto(total, resourcesOf(spec.overhead));
  return total;
}

/** A node's allocatable resources (capacity where allocatable is absent). */
export function nodeAllocatable(node: KubeObject): Resources {
  const status = isObject(node.status) ? node.status : {};
  return resourcesOf(status.allocatable ?? status.capacity);
}
