/**
 * The conditions of a CustomResourceDefinition's status (NamesAccepted, Established,
 * Terminating): finding and setting them as kube's helpers do.
 *
 * @module
 */
import type {
  CustomResourceDefinition,
  CustomResourceDefinitionCondition,
} from "../../../../shared/api/apiextensions/v1/types.ts";
import { rfc3339 } from "../../generic/clock.ts";

/** A condition without its transition time. */
export type CrdCondition = Omit<CustomResourceDefinitionCondition, "lastTransitionTime">;

/** The condition of `type`, if set. */
export function findCondition(
  crd: CustomResourceDefinition,
  type: string,
): CustomResourceDefinitionCondition | undefined {
  return crd.status?.conditions?.find((c) => c.type === type);
}

/** Whether the condition `type` is True. */
export function isConditionTrue(crd: CustomResourceDefinition, type: string): boolean {
  return findCondition(crd, type)?.status === "True";
}

/**
 * Sets a condition (kube's SetCRDCondition): its transition time changes only when its
 * status does.
 */
export function setCondition(
  crd: CustomResourceDefinition,
  cond: CrdCondition,
  now = Date.now(),
): void {
  crd.status ??= {};
  const conditions = crd.status.conditions ??= [];
  const at = conditions.findIndex((c) => c.type === cond.type);
  const old = at >= 0 ? conditions[at] : undefined;
  const lastTransitionTime = old && old.status === cond.status
    ? old.lastTransitionTime
    : rfc3339(now);
  const next = { ...cond, lastTransitionTime };
  if (at >= 0) conditions[at] = next;
  else conditions.push(next);
}
