/**
 * PodSecurity on Namespaces, as k8s.io/pod-security-admission 1.32: labels with a bad level
 * or version are refused (422) on create, and on an update that introduces or changes such
 * errors; an update that makes the enforce level stricter warns about the existing pods that
 * would violate it (at most 3000 pods within about a second, one warning per distinct set of
 * reasons, naming the first pod by name and how many others share it).
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import { deepEqual } from "../../../shared/json/deep_equal.ts";
import type { AdmissionAttributes } from "../../registry/generic/admission.ts";
import { evaluatePod, forbiddenReason } from "./evaluator.ts";
import { obj } from "./check_result.ts";
import {
  compareLevels,
  type LevelVersion,
  levelVersionString,
  policyToEvaluate,
  sameVersion,
} from "./policy.ts";

/** The most existing pods checked against a new enforce level. */
export const MAX_PODS_TO_CHECK = 3000;
/** How long the check of existing pods may take (ms). */
export const POD_CHECK_TIMEOUT_MS = 1000;

/** Lists the pods of a namespace. */
export type PodLister = (namespace: string) => Promise<KubeObject[]>;

/** A namespace's labels. */
export function labelsOf(o: KubeObject | undefined): Record<string, string> {
  return (o?.metadata?.labels ?? {}) as Record<string, string>;
}

/** Validates a Namespace create or update; warns about pods violating a stricter enforce level. */
export async function validateNamespace(
  a: AdmissionAttributes,
  listPods: PodLister,
): Promise<void> {
  if (a.subresource || !a.object) return;
  const next = policyToEvaluate(labelsOf(a.object));
  const invalid = () => StatusError.invalid({ group: "", kind: "Namespace" }, a.name, next.errors);
  if (a.operation === "CREATE") {
    if (next.errors.length > 0) throw invalid();
    return;
  }
  if (a.operation !== "UPDATE") return;
  const old = policyToEvaluate(labelsOf(a.oldObject));
  if (next.errors.length > 0 && (old.errors.length === 0 || !deepEqual(next.errors, old.errors))) {
    throw invalid();
  }
  const [now, before] = [next.policy.enforce, old.policy.enforce];
  if (now.level === before.level && sameVersion(now.version, before.version)) return;
  if (now.level === "privileged") return;
  if (sameVersion(now.version, before.version) && compareLevels(now.level, before.level) < 1) {
    return;
  }
  const warnings = await evaluatePodsInNamespace(a.name, now, listPods);
  for (const w of warnings) a.warn?.(w);
}

/** The warnings about a namespace's existing pods that would violate `enforce`. */
export async function evaluatePodsInNamespace(
  namespace: string,
  enforce: LevelVersion,
  listPods: PodLister,
): Promise<string[]> {
  const deadline = Date.now() + POD_CHECK_TIMEOUT_MS;
  let pods: KubeObject[];
  try {
    pods = prioritize(await listPods(namespace));
  } catch {
    return ["failed to list pods while checking new PodSecurity enforce level"];
  }
  const total = pods.length;
  const candidates = pods.slice(0, MAX_PODS_TO_CHECK);
  let checked = candidates.length;
  const byReason = new Map<string, { first: string; count: number }>();
  for (const [i, pod] of candidates.entries()) {
    const r = evaluatePod(enforce, obj(pod.metadata), obj(pod.spec));
    if (!r.allowed) {
      const reason = forbiddenReason(r), name = pod.metadata.name ?? "";
      const seen = byReason.get(reason);
      if (!seen) byReason.set(reason, { first: name, count: 1 });
      else [seen.first, seen.count] = [name < seen.first ? name : seen.first, seen.count + 1];
    }
    if (Date.now() > deadline) {
      checked = i + 1;
      break;
    }
  }
  const warnings: string[] = [];
  if (checked < total) {
    warnings.push(
      `new PodSecurity enforce level only checked against the first ${checked} of ${total} existing pods`,
    );
  }
  if (byReason.size > 0) {
    warnings.push(
      `existing pods in namespace "${namespace}" violate the new PodSecurity enforce level "${
        levelVersionString(enforce)
      }"`,
    );
  }
  const perPod = [...byReason].map(([reason, { first, count }]) =>
    count === 1
      ? `${first}: ${reason}`
      : `${first} (and ${count - 1} other pod${count === 2 ? "" : "s"}): ${reason}`
  );
  return [...warnings, ...perPod.sort()];
}

/** Pods first that have no controller, or are the first of their controller's; then the rest. */
function prioritize(pods: KubeObject[]): KubeObject[] {
  const first: KubeObject[] = [], duplicates: KubeObject[] = [];
  const seen = new Set<string>();
  for (const pod of pods) {
    const owner = (pod.metadata.ownerReferences ?? []).find((r) => r.controller === true);
    if (!owner) first.push(pod);
    else if (seen.has(owner.uid)) duplicates.push(pod);
    else [seen.add(owner.uid), first.push(pod)];
  }
  return [...first, ...duplicates];
}
