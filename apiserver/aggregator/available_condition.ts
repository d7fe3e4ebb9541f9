/**
 * The `Available` condition of an APIService, set as kube-aggregator's SetAPIServiceCondition
 * does: the transition time stays while the status does not change.
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { isObject } from "../../shared/json/is_object.ts";

/** An `Available` condition's status, reason and message. */
export interface Availability {
  status: "True" | "False" | "Unknown";
  reason: string;
  message: string;
}

/** What a local APIService always is. */
export const LOCAL_AVAILABILITY: Availability = {
  status: "True",
  reason: "Local",
  message: "Local APIServices are always available",
};

/** RFC 3339 with second precision, as metav1.Time renders. */
export function nowTimestamp(now = Date.now()): string {
  return new Date(Math.floor(now / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

/**
 * `o`'s status with `Available` set to `a` (a new status object), or undefined when the
 * condition already says so.
 */
export function withAvailability(
  o: KubeObject,
  a: Availability,
  now = Date.now(),
): Record<string, unknown> | undefined {
  const status = isObject(o.status) ? o.status : {};
  const conditions = Array.isArray(status.conditions) ? status.conditions.filter(isObject) : [];
  const old = conditions.find((c) => c.type === "Available");
  if (old && old.status === a.status && old.reason === a.reason && old.message === a.message) {
    return undefined;
  }
  const next = {
    type: "Available",
    status: a.status,
    lastTransitionTime: old && old.status === a.status && typeof old.lastTransitionTime === "string"
      ? old.lastTransitionTime
      : nowTimestamp(now),
    reason: a.reason,
    message: a.message,
  };
  const others = conditions.filter((c) => c.type !== "Available");
  return {
    ...status,
    conditions: old ? conditions.map((c) => c === old ? next : c) : [...others, next],
  };
}
