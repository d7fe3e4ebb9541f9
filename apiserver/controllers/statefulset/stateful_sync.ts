/**
 * One pass of kube's `StatefulSetControl.UpdateStatefulSet` over a set's pods: recreate failed
 * pods, create missing ones (claims first), delete condemned ones from the highest ordinal,
 * and roll pods to the update revision — waiting for each pod to be Running and Ready under
 * `OrderedReady` — then count the status.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { isObject } from "../../../shared/json/is_object.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import type { Store } from "../../registry/generic/store.ts";
import type { ControllerEvents } from "../workloads/controller_events.ts";
import { REVISION_HASH_LABEL } from "../workloads/controller_revisions.ts";
import { isAvailable } from "../daemonset/daemon_pods.ts";
import {
  claimTemplates,
  isRunningAndReady,
  newClaim,
  newStatefulPod,
  ordinalOf,
  revisionTemplate,
  setSpec,
} from "./stateful_pods.ts";
import { claimOwners, releaseClaimsOfCondemned } from "./claim_retention.ts";

/** What a pass works with. */
export interface SetContext {
  set: KubeObject;
  /** The revision of `status.currentRevision` (the update revision when there is none). */
  current: KubeObject;
  /** The revision of the set's template. */
  update: KubeObject;
  /** The set's pods (updated as the pass creates and deletes). */
  pods: KubeObject[];
  podStore: Store;
  claims: Store;
  events: ControllerEvents;
  now: number;
}

/** StatefulSet pods carry their revision's name in controller-revision-hash. */
const hashOf = (r: KubeObject) => r.metadata.name!;
const phase = (p: KubeObject) => isObject(p.status) ? p.status.phase : undefined;
const num = (v: unknown, d: number) => typeof v === "number" ? v : d;

function strategy(set: KubeObject): { type: string; partition: number } {
  const s = isObject(setSpec(set).updateStrategy)
    ? setSpec(set).updateStrategy as Record<string, unknown>
    : {};
  const ru = isObject(s.rollingUpdate) ? s.rollingUpdate : {};
  return { type: String(s.type ?? "RollingUpdate"), partition: num(ru.partition, 0) };
}

/** The range of ordinals the set wants. */
function ordinals(set: KubeObject): [number, number] {
  const spec = setSpec(set);
  const start = isObject(spec.ordinals) ? num(spec.ordinals.start, 0) : 0;
  return [start, start + num(spec.replicas, 1)];
}

/** Runs the pass; answers when to look again (ms), for minReadySeconds. */
export async function syncReplicas(ctx: SetContext): Promise<number | undefined> {
  const { set } = ctx;
  const ordered = setSpec(set).podManagementPolicy !== "Parallel";
  const [first, end] = ordinals(set);
  const byOrdinal = new Map(ctx.pods.map((p) => [ordinalOf(set, p)!, p]));
  for (let i = first; i < end; i++) {
    let pod = byOrdinal.get(i);
    if (pod && phase(pod) === "Failed" && !pod.metadata.deletionTimestamp) {
      await ctx.events.warning(
        set,
        "RecreatingFailedPod",
        `StatefulSet ${set.metadata.namespace}/${set.metadata.name} is recreating failed Pod ${pod.metadata.name}`,
      );
      await deletePod(ctx, pod);
      if (ordered) return undefined;
      continue;
    }
    if (!pod) {
      pod = await createPod(ctx, i);
      if (ordered) return undefined;
      continue;
    }
    if (ordered && (pod.metadata.deletionTimestamp || !isRunningAndReady(pod))) return undefined;
  }
  const condemned = ctx.pods.filter((p) => {
    const i = ordinalOf(set, p)!;
    return i < first || i >= end;
  }).sort((a, b) => ordinalOf(set, b)! - ordinalOf(set, a)!);
  for (const pod of condemned) {
    if (pod.metadata.deletionTimestamp) {
      if (ordered) return undefined;
      continue;
    }
    if (ordered && ctx.pods.some((p) => p !== pod && !isRunningAndReady(p))) return undefined;
    await releaseClaimsOfCondemned(set, pod, ordinalOf(set, pod)!, ctx.claims);
    await deletePod(ctx, pod);
    if (ordered) return undefined;
  }
  return await rollingUpdate(ctx, first, end);
}

/** Deletes the highest pod below the update revision, down to the partition, one at a time. */
async function rollingUpdate(
  ctx: SetContext,
  first: number,
  end: number,
): Promise<number | undefined> {
  const { type, partition } = strategy(ctx.set);
  if (type !== "RollingUpdate") return undefined;
  const updateHash = hashOf(ctx.update);
  for (let i = end - 1; i >= Math.max(first, partition); i--) {
    const pod = ctx.pods.find((p) => ordinalOf(ctx.set, p) === i);
    if (!pod) return undefined;
    if (pod.metadata.labels?.[REVISION_HASH_LABEL] !== updateHash) {
      if (!pod.metadata.deletionTimestamp) await deletePod(ctx, pod);
      return undefined;
    }
    if (!isRunningAndReady(pod)) return undefined;
  }
  return undefined;
}

/** Creates the claims and the pod of ordinal `i`, at the revision it belongs to. */
async function createPod(ctx: SetContext, i: number): Promise<KubeObject> {
  const { set } = ctx;
  const { type, partition } = strategy(set);
  const revision = type === "RollingUpdate" && i < partition ? ctx.current : ctx.update;
  const pod = newStatefulPod(set, revisionTemplate(revision), hashOf(revision), i);
  for (const t of claimTemplates(set)) {
    const claim = newClaim(set, t, i);
    const owners = claimOwners(set);
    if (owners.length) claim.metadata.ownerReferences = owners;
    try {
      await ctx.claims.create(set.metadata.namespace!, claim);
      await ctx.events.normal(
        set,
        "SuccessfulCreate",
        `create Claim ${claim.metadata.name} Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} success`,
      );
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 409)) throw err;
    }
  }
  try {
    const created = await ctx.podStore.create(set.metadata.namespace!, pod);
    await ctx.events.normal(
      set,
      "SuccessfulCreate",
      `create Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} successful`,
    );
    ctx.pods.push(created);
    return created;
  } catch (err) {
    if (!(err instanceof StatusError)) throw err;
    if (err.code !== 409) {
      await ctx.events.warning(
        set,
        "FailedCreate",
        `create Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} failed error: ${err.message}`,
      );
    }
    return pod;
  }
}

async function deletePod(ctx: SetContext, pod: KubeObject): Promise<void> {
  try {
    await ctx.podStore.delete(pod.metadata.namespace!, pod.metadata.name!, {
      preconditions: { uid: pod.metadata.uid },
    });
    await ctx.events.normal(
      ctx.set,
      "SuccessfulDelete",
      `delete Pod ${pod.metadata.name} in StatefulSet ${ctx.set.metadata.name} successful`,
    );
  } catch (err) {
    if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
  }
  pod.metadata.deletionTimestamp ??= new Date(ctx.now).toISOString();
}

/** The set's status after the pass. */
export function statefulStatus(ctx: SetContext): Record<string, unknown> {
  const { set } = ctx;
  const minReady = num(setSpec(set).minReadySeconds, 0);
  const live = ctx.pods.filter((p) => !p.metadata.deletionTimestamp);
  const currentHash = hashOf(ctx.current), updateHash = hashOf(ctx.update);
  const count = (f: (p: KubeObject) => boolean) => live.filter(f).length;
  const status: Record<string, unknown> = {
    observedGeneration: set.metadata.generation,
    replicas: live.length,
    readyReplicas: count(isRunningAndReady),
    currentReplicas: count((p) => p.metadata.labels?.[REVISION_HASH_LABEL] === currentHash),
    updatedReplicas: count((p) => p.metadata.labels?.[REVISION_HASH_LABEL] === updateHash),
    currentRevision: ctx.current.metadata.name,
    updateRevision: ctx.update.metadata.name,
    collisionCount: num((set.status as Record<string, unknown> | undefined)?.collisionCount, 0),
    availableReplicas: count((p) => isRunningAndReady(p) && isAvailable(p, minReady, ctx.now)),
  };
  const replicas = num(setSpec(set).replicas, 1);
  // The rollout is complete: the update revision becomes the current one.
  if (
    status.updatedReplicas === replicas && status.readyReplicas === replicas &&
    status.replicas === replicas
  ) {
    status.currentRevision = status.updateRevision;
    status.currentReplicas = status.updatedReplicas;
  }
  for (const f of ["readyReplicas", "currentReplicas", "updatedReplicas"]) {
    if (status[f] === 0) delete status[f];
  }
  return status;
}
