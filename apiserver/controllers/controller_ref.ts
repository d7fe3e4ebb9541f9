/**
 * Controller references (kube's ControllerRefManager): an object's controller is the owner
 * reference with `controller: true`. A controller adopts the objects its selector matches that
 * have no controller (unless it is being deleted), and releases those it controls that its
 * selector no longer matches; both are patches of `metadata.ownerReferences` on the stored
 * object, guarded by its uid.
 *
 * @module
 */
import { CONTROLLER_MANAGER } from "./controller_identity.ts";
import type { KubeObject, OwnerReference } from "../../shared/api/meta/v1/types.ts";
import type { LabelSelector } from "../../shared/selectors/label_selector.ts";
import { StatusError } from "../../shared/errors/status_error.ts";
import type { Store } from "../registry/generic/store.ts";
import { controllerRef } from "./workloads/pod_from_template.ts";
import type { UserInfo } from "../../shared/api/authentication/v1/user_info.ts";

/** The controller reference of `obj`, if any. */
export function controllerOf(obj: KubeObject): OwnerReference | undefined {
  return (obj.metadata.ownerReferences ?? []).find((r) => r.controller === true);
}

/** The controller reference a controller puts on what it makes (to `owner`'s own kind). */
export function controllerRefTo(owner: KubeObject): OwnerReference {
  return controllerRef(owner, owner.apiVersion!, owner.kind!);
}

/**
 * The objects `owner` controls among `candidates`, after adopting the matching orphans and
 * releasing the controlled ones that no longer match (kube's ClaimObjects). Objects being
 * deleted are neither adopted nor released.
 */
export async function claimObjects(
  store: Store,
  owner: KubeObject,
  selector: LabelSelector,
  candidates: readonly KubeObject[],
  user?: UserInfo,
): Promise<KubeObject[]> {
  const mine: KubeObject[] = [];
  for (const obj of candidates) {
    const ref = controllerOf(obj);
    const matches = selector.matches(obj.metadata.labels);
    if (ref) {
      if (ref.uid !== owner.metadata.uid) continue;
      if (matches || obj.metadata.deletionTimestamp || owner.metadata.deletionTimestamp) {
        mine.push(obj);
        continue;
      }
      await setController(store, obj, undefined, owner.metadata.uid!, user);
      continue;
    }
    if (!matches || obj.metadata.deletionTimestamp || owner.metadata.deletionTimestamp) continue;
    const adopted = await setController(store, obj, controllerRefTo(owner), undefined, user);
    if (adopted) mine.push(adopted);
  }
  return mine;
}

/**
 * Adds `ref` as the controller of `obj` (when it still has none), or removes the owner
 * reference to `releaseUid`; answers the updated object, or undefined when it is gone or
 * changed hands.
 */
async function setController(
  store: Store,
  obj: KubeObject,
  ref: OwnerReference | undefined,
  releaseUid: string | undefined,
  user?: UserInfo,
): Promise<KubeObject | undefined> {
  try {
    const { object } = await store.guaranteedUpdate(
      obj.metadata.namespace ?? "",
      obj.metadata.name!,
      (current) => {
        if (!current || current.metadata.uid !== obj.metadata.uid) return undefined;
        const refs = current.metadata.ownerReferences ?? [];
        if (ref) {
          if (refs.some((r) => r.controller === true)) return undefined;
          current.metadata.ownerReferences = [...refs, ref];
        } else {
          const kept = refs.filter((r) => r.uid !== releaseUid);
          if (kept.length === refs.length) return undefined;
          current.metadata.ownerReferences = kept.length > 0 ? kept : undefined;
        }
        return current;
      },
      { uid: obj.metadata.uid },
      { user, fieldManager: CONTROLLER_MANAGER },
    );
    return ref && controllerOf(object)?.uid === ref.uid ? object : undefined;
  } catch (err) {
    if (err instanceof StatusError && (err.code === 404 || err.code === 409)) return undefined;
    throw err;
  }
}
