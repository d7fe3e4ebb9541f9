/**
 * A Job's `podFailurePolicy` applied to one failed pod, as kube's `matchPodFailurePolicy`: the
 * first rule whose `onExitCodes` or `onPodConditions` match decides (`FailJob`, `FailIndex`,
 * `Ignore`, `Count`); without a match the failure counts. The `FailJob` message is kube's.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { isObject } from "../../../shared/json/is_object.ts";

type Obj = Record<string, unknown>;

/** What a failed pod does to its Job. */
export interface FailureVerdict {
  action: "FailJob" | "FailIndex" | "Ignore" | "Count";
  /** The FailJob or FailIndex message. */
  message?: string;
}

const list = (v: unknown): Obj[] => Array.isArray(v) ? v.filter(isObject) : [];

/** The first container (init containers first) whose exit code matches `req`, if any. */
function exitCodeMatch(pod: KubeObject, req: Obj): { name: string; code: number } | undefined {
  const status = isObject(pod.status) ? pod.status : {};
  const values = Array.isArray(req.values) ? req.values.map(Number) : [];
  for (const cs of [...list(status.initContainerStatuses), ...list(status.containerStatuses)]) {
    const state = isObject(cs.state) ? cs.state : {};
    const terminated = isObject(state.terminated) ? state.terminated : undefined;
    if (!terminated) continue;
    if (typeof req.containerName === "string" && req.containerName !== cs.name) continue;
    const code = Number(terminated.exitCode ?? 0);
    if (code === 0) continue; // a successful container never matches
    const inValues = values.includes(code);
    if (req.operator === "In" ? inValues : !inValues) return { name: String(cs.name), code };
  }
  return undefined;
}

function conditionMatch(pod: KubeObject, patterns: Obj[]): string | undefined {
  const status = isObject(pod.status) ? pod.status : {};
  for (const c of list(status.conditions)) {
    const hit = patterns.find((p) => p.type === c.type && (p.status ?? "True") === c.status);
    if (hit) return String(c.type);
  }
  return undefined;
}

/** The verdict of `policy` on the failed `pod` (undefined policy: Count). */
export function matchPodFailurePolicy(policy: unknown, pod: KubeObject): FailureVerdict {
  if (!isObject(policy)) return { action: "Count" };
  const podRef = `${pod.metadata.namespace}/${pod.metadata.name}`;
  for (const [index, rule] of list(policy.rules).entries()) {
    const action = String(rule.action) as FailureVerdict["action"];
    const rulePart = `matching ${action} rule at index ${index}`;
    if (isObject(rule.onExitCodes)) {
      const hit = exitCodeMatch(pod, rule.onExitCodes);
      if (hit) {
        return {
          action,
          message:
            `Container ${hit.name} for pod ${podRef} failed with exit code ${hit.code} ${rulePart}`,
        };
      }
    }
    const onConditions = list(rule.onPodConditions);
    if (onConditions.length) {
      const type = conditionMatch(pod, onConditions);
      if (type) return { action, message: `Pod ${podRef} has condition ${type} ${rulePart}` };
    }
  }
  return { action: "Count" };
}
