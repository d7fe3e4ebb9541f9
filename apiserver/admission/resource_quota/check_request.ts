/**
 * The quota check of one write, as kube's quota admission's checkRequest: every quota of the
 * namespace that selects the object must know its usage, the object must satisfy its
 * constraints, and the object's usage (on update, only what it grows by) added to each
 * quota's `status.used` must stay within `status.hard`. The answer is the new usage of each
 * quota it changes; a refusal is kube's 403.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import { isObject } from "../../../shared/json/is_object.ts";
import { type Evaluator, quotaMatches, type QuotaWrite } from "./evaluators.ts";
import { scopeSelectorsOf } from "./pod_usage.ts";
import {
  add,
  isZero,
  lessThanOrEqual,
  mask,
  negativeNames,
  parseResourceList,
  prettyPrint,
  type ResourceList,
  subtractNonNegative,
} from "./resource_list.ts";

/** A quota's name and the usage it would have after the write. */
export interface Charge {
  quota: KubeObject;
  used: ResourceList;
}

/** The write being checked, with what the 403 names. */
export interface CheckedWrite extends QuotaWrite {
  group: string;
  resource: string;
  name: string;
  now: number;
}

const statusOf = (q: KubeObject) => isObject(q.status) ? q.status : {};

/** The quotas that select the object, after checking their status and constraints. */
function selectingQuotas(quotas: KubeObject[], w: CheckedWrite, e: Evaluator): KubeObject[] {
  const forbid = (msg: string) =>
    StatusError.forbidden({ group: w.group, resource: w.resource }, w.name, msg);
  const out: KubeObject[] = [];
  for (const q of quotas) {
    const hard = parseResourceList(statusOf(q).hard);
    const hardNames = [...hard.keys()];
    if (!quotaMatches(e, hardNames, scopeSelectorsOf(q), w.object!)) continue;
    const restricted = e.matchingResources(hardNames);
    const problem = e.constraints(restricted, w.object!);
    if (problem) throw forbid(`failed quota: ${q.metadata.name}: ${problem}`);
    const used = isObject(statusOf(q).used) ? statusOf(q).used as Record<string, unknown> : {};
    if (restricted.some((r) => !(r in used))) {
      throw forbid(
        `status unknown for quota: ${q.metadata.name}, resources: ${
          [...restricted].sort().join(",")
        }`,
      );
    }
    out.push(q);
  }
  return out;
}

/** The usage a write adds: the object's, less the old object's on update (never below zero). */
function deltaOf(w: CheckedWrite, e: Evaluator): ResourceList {
  const forbid = (msg: string) =>
    StatusError.forbidden({ group: w.group, resource: w.resource }, w.name, msg);
  let delta = e.usage(w.object!, w.now);
  const negative = negativeNames(delta);
  if (negative.length > 0) {
    throw forbid(`quota usage is negative for resource(s): ${negative.join(",")}`);
  }
  if (w.operation === "UPDATE" && w.oldObject?.metadata?.resourceVersion) {
    delta = subtractNonNegative(delta, e.usage(w.oldObject, w.now));
  }
  return delta;
}

/**
 * Checks a write against the namespace's quotas; returns the quotas whose usage it changes,
 * with their new usage (empty when none applies). Throws kube's 403 when a quota is exceeded.
 */
export function checkRequest(quotas: KubeObject[], w: CheckedWrite, e: Evaluator): Charge[] {
  if (!w.object || !e.handles(w)) return [];
  const selecting = selectingQuotas(quotas, w, e);
  if (selecting.length === 0) return [];
  const delta = deltaOf(w, e);
  if (isZero(delta)) return [];
  const charges: Charge[] = [];
  for (const q of selecting) {
    const hard = parseResourceList(statusOf(q).hard);
    const used = parseResourceList(statusOf(q).used);
    const requested = mask(delta, hard.keys());
    const newUsed = add(used, requested);
    const [ok, exceeded] = lessThanOrEqual(mask(newUsed, requested.keys()), hard);
    if (!ok) {
      throw StatusError.forbidden(
        { group: w.group, resource: w.resource },
        w.name,
        `exceeded quota: ${q.metadata.name}, requested: ${
          prettyPrint(mask(requested, exceeded))
        }, used: ${prettyPrint(mask(used, exceeded))}, limited: ${
          prettyPrint(mask(hard, exceeded))
        }`,
      );
    }
    if (!isZero(requested)) charges.push({ quota: q, used: newUsed });
  }
  return charges;
}
