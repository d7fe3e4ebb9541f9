/**
 * A StatefulSet's `persistentVolumeClaimRetentionPolicy` (kube's StatefulSetAutoDeletePVC):
 * with `whenDeleted: Delete` its claims are owned by the set, so the garbage collector deletes
 * them with it; with `whenScaled: Delete` the claims of a pod removed by a scale down are owned
 * by that pod, and go with it. `Retain` (the default) leaves claims alone.
 *
 * @module
 */
import type { KubeObject, OwnerReference } from "../../../shared/api/meta/v1/types.ts";
import { isObject } from "../../../shared/json/is_object.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import type { Store } from "../../registry/generic/store.ts";
import { claimName, claimTemplates, setSpec } from "./stateful_pods.ts";

/** The set's retention policy (Retain by default). */
export function retentionPolicy(set: KubeObject): { whenDeleted: string; whenScaled: string } {
  const p = setSpec(set).persistentVolumeClaimRetentionPolicy;
  const policy = isObject(p) ? p : {};
  return {
    whenDeleted: String(policy.whenDeleted ?? "Retain"),
    whenScaled: String(policy.whenScaled ?? "Retain"),
  };
}

/** The owner reference a new claim gets (the set, under `whenDeleted: Delete`). */
export function claimOwners(set: KubeObject): OwnerReference[] {
  if (retentionPolicy(set).whenDeleted !== "Delete") return [];
  return [{
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    name: set.metadata.name!,
    uid: set.metadata.uid!,
  }];
}

/** Under `whenScaled: Delete`, makes the condemned pod own its claims before it goes. */
export async function releaseClaimsOfCondemned(
  set: KubeObject,
  pod: KubeObject,
  ordinal: number,
  claims: Store,
): Promise<void> {
  if (retentionPolicy(set).whenScaled !== "Delete") return;
  const ref: OwnerReference = {
    apiVersion: "v1",
    kind: "Pod",
    name: pod.metadata.name!,
    uid: pod.metadata.uid!,
  };
  for (const t of claimTemplates(set)) {
    try {
      await claims.guaranteedUpdate(set.metadata.namespace!, claimName(set, t, ordinal), (c) => {
        if (!c || (c.metadata.ownerReferences ?? []).some((r) => r.uid === ref.uid)) return;
        return {
          ...c,
          metadata: { ...c.metadata, ownerReferences: [...c.metadata.ownerReferences ?? [], ref] },
        };
      });
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 404)) throw err;
    }
  }
}
