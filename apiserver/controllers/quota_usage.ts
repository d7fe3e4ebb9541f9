/**
 * The status a ResourceQuota should have, as kube's quota controller computes it
 * (quota.CalculateUsage): `hard` is `spec.hard`; `used` is, for every hard resource some
 * evaluator tracks, the sum over the namespace's objects the quota selects (0 when none),
 * keeping earlier observations of resources nothing tracks now.
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { isObject } from "../../shared/json/is_object.ts";
import { type Evaluator, EvaluatorRegistry } from "../admission/resource_quota/evaluators.ts";
import { scopeSelectorsOf } from "../admission/resource_quota/pod_usage.ts";
import {
  add,
  mask,
  parseResourceList,
  type ResourceList,
  toJson,
} from "../admission/resource_quota/resource_list.ts";
import { Quantity } from "../../shared/api/quantity.ts";
import type { Store } from "../registry/generic/store.ts";

/** Finds stores by group and resource (the registry). */
export interface StoreFinder {
  all(): Store[];
}

/**
 * The evaluators for a quota's hard resources: the built-in ones, and an object count
 * evaluator for each `count/<resource>[.<group>]` whose kind is served.
 */
function evaluatorsFor(
  stores: Store[],
  hard: string[],
  evaluators: EvaluatorRegistry,
): Evaluator[] {
  for (const name of hard) {
    if (!name.startsWith("count/")) continue;
    const [resource, ...group] = name.slice("count/".length).split(".");
    const g = group.join(".");
    if (stores.some((s) => s.def.group === g && s.def.plural === resource)) {
      evaluators.get(g, resource);
    }
  }
  return evaluators.all();
}

/** The store serving a group/resource (its storage, for kinds served from another version). */
function storeOf(stores: Store[], e: Evaluator): Store | undefined {
  return stores.find((s) =>
    s.def.group === e.group && s.def.plural === e.resource && s.storageStore === s
  );
}

/** Computes `status` for a quota from the objects of `namespace`. */
export async function computeQuotaStatus(
  registry: StoreFinder,
  namespace: string,
  quota: KubeObject,
  now: number,
  evaluators: EvaluatorRegistry = new EvaluatorRegistry(),
): Promise<{ hard: Record<string, string>; used: Record<string, string> }> {
  const hard = parseResourceList(isObject(quota.spec) ? quota.spec.hard : undefined);
  const hardNames = [...hard.keys()];
  const status = isObject(quota.status) ? quota.status : {};
  let used = parseResourceList(status.used);
  const scopes = scopeSelectorsOf(quota);
  const stores = registry.all();
  for (const e of evaluatorsFor(stores, hardNames, evaluators)) {
    const tracked = e.matchingResources(hardNames);
    const store = storeOf(stores, e);
    if (tracked.length === 0 || !store) continue;
    let sum: ResourceList = new Map(tracked.map((r) => [r, new Quantity(0n, 0)]));
    const list = await store.list(namespace, { plan: { mode: "latest" } });
    for (const o of list.items) {
      if (scopes.every((s) => e.matchesScope(s, o))) sum = add(sum, mask(e.usage(o, now), tracked));
    }
    for (const [r, q] of sum) used.set(r, q);
  }
  used = mask(used, hardNames);
  return { hard: toJson(hard), used: toJson(used) };
}
