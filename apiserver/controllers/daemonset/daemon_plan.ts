/**
 * What a DaemonSet sync does to its pods, decided from each node's state (kube's `manage` and
 * `rollingUpdate`): create a pod where one should run and none does, delete pods where none
 * may stay, failed pods and duplicates, replace old-revision pods within the rolling update's
 * budget, and count the status.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { isObject } from "../../../shared/json/is_object.ts";
import { REVISION_HASH_LABEL } from "../workloads/controller_revisions.ts";
import { scaledValue } from "../workloads/int_or_percent.ts";
import { isAvailable } from "./daemon_pods.ts";

/** One node as the DaemonSet sees it. */
export interface NodeState {
  name: string;
  shouldRun: boolean;
  shouldContinue: boolean;
  /** The DaemonSet's pods on (or meant for) the node. */
  pods: KubeObject[];
}

/** The plan of one sync. */
export interface DaemonPlan {
  /** Nodes that get a new pod. */
  create: string[];
  delete: KubeObject[];
  /** Failed pods to delete (and report). */
  failed: KubeObject[];
  status: Record<string, unknown>;
  /** When to look again (a pod becoming available after minReadySeconds), ms. */
  again?: number;
}

const phase = (p: KubeObject) => isObject(p.status) ? p.status.phase : undefined;
const isNew = (p: KubeObject, hash: string) => p.metadata.labels?.[REVISION_HASH_LABEL] === hash;
const created = (p: KubeObject) => Date.parse(p.metadata.creationTimestamp ?? "") || 0;

/** Plans the DaemonSet's pods over `nodes`. */
export function planDaemonPods(
  ds: KubeObject,
  hash: string,
  nodes: NodeState[],
  now: number,
): DaemonPlan {
  const spec = isObject(ds.spec) ? ds.spec : {};
  const minReady = typeof spec.minReadySeconds === "number" ? spec.minReadySeconds : 0;
  const plan: DaemonPlan = { create: [], delete: [], failed: [], status: {} };
  const live = new Map<string, KubeObject[]>();
  for (const n of nodes) {
    const pods = n.pods.filter((p) => !p.metadata.deletionTimestamp);
    const failed = pods.filter((p) => phase(p) === "Failed");
    plan.failed.push(...failed);
    let keep = pods.filter((p) => !failed.includes(p));
    if (!n.shouldContinue) {
      plan.delete.push(...keep);
      keep = [];
    } else if (n.shouldRun && keep.length === 0 && failed.length === 0 && n.pods.length === 0) {
      plan.create.push(n.name);
    } else if (keep.length > 1) {
      // One pod per node: at most one old and one new while surging, else the oldest.
      const sorted = [...keep].sort((a, b) => created(a) - created(b));
      const newest = sorted.filter((p) => isNew(p, hash)).slice(0, 1);
      const oldest = sorted.filter((p) => !isNew(p, hash)).slice(0, 1);
      const kept = newest.length ? [...newest, ...oldest] : sorted.slice(0, 1);
      plan.delete.push(...keep.filter((p) => !kept.includes(p)));
      keep = kept;
    }
    if (n.shouldRun) live.set(n.name, keep);
  }
  const update = isObject(spec.updateStrategy) ? spec.updateStrategy : {};
  if ((update.type ?? "RollingUpdate") === "RollingUpdate") {
    rollingUpdate(
      plan,
      live,
      hash,
      isObject(update.rollingUpdate) ? update.rollingUpdate : {},
      minReady,
      now,
    );
  }
  plan.status = statusOf(nodes, live, hash, minReady, now);
  const waiting = [...live.values()].flat().some((p) =>
    isAvailable(p, 0, now) && !isAvailable(p, minReady, now)
  );
  if (waiting) plan.again = minReady * 1000;
  return plan;
}

function rollingUpdate(
  plan: DaemonPlan,
  live: Map<string, KubeObject[]>,
  hash: string,
  ru: Record<string, unknown>,
  minReady: number,
  now: number,
): void {
  const desired = live.size;
  const maxSurge = scaledValue(ru.maxSurge, desired, true, 0);
  let maxUnavailable = scaledValue(ru.maxUnavailable, desired, true, 1);
  if (maxSurge === 0 && maxUnavailable === 0) maxUnavailable = 1;
  if (maxSurge > 0) maxUnavailable = 0;
  const available = (p: KubeObject) => isAvailable(p, minReady, now);
  let unavailable = [...live.values()].filter((pods) => !pods.some(available)).length;
  let surging = 0;
  const candidates: [string, KubeObject][] = [];
  for (const [node, pods] of live) {
    const old = pods.find((p) => !isNew(p, hash));
    const fresh = pods.find((p) => isNew(p, hash));
    if (!old) continue;
    if (fresh) {
      if (available(fresh)) plan.delete.push(old);
      else surging++;
    } else if (!available(old)) plan.delete.push(old); // already down: replace it now
    else candidates.push([node, old]);
  }
  for (const [node, old] of candidates) {
    if (maxSurge > 0) {
      if (surging >= maxSurge) break;
      surging++;
      plan.create.push(node);
    } else {
      if (unavailable >= maxUnavailable) break;
      unavailable++;
      plan.delete.push(old);
    }
  }
}

function statusOf(
  nodes: NodeState[],
  live: Map<string, KubeObject[]>,
  hash: string,
  minReady: number,
  now: number,
): Record<string, unknown> {
  const ready = (p: KubeObject) => isAvailable(p, 0, now);
  let scheduled = 0, readyCount = 0, available = 0, updated = 0;
  for (const pods of live.values()) {
    if (pods.length === 0) continue;
    scheduled++;
    if (pods.some(ready)) readyCount++;
    if (pods.some((p) => isAvailable(p, minReady, now))) available++;
    if (pods.some((p) => isNew(p, hash))) updated++;
  }
  const misscheduled =
    nodes.filter((n) => !n.shouldRun && n.pods.some((p) => !p.metadata.deletionTimestamp)).length;
  const status: Record<string, unknown> = {
    currentNumberScheduled: scheduled,
    numberMisscheduled: misscheduled,
    desiredNumberScheduled: live.size,
    numberReady: readyCount,
  };
  if (updated) status.updatedNumberScheduled = updated;
  if (available) status.numberAvailable = available;
  if (live.size - available) status.numberUnavailable = live.size - available;
  return status;
}
