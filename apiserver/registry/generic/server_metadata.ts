/**
 * The metadata the server owns (uid, creation, generation, deletion state, resourceVersion):
 * cleared from a create's body, carried over from the stored object on update, and the
 * generation bumped when the spec changes.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { deepEqual } from "../../../shared/json/deep_equal.ts";

/** The metadata fields a create's body may not set. */
export const SYSTEM_METADATA = [
  "uid",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "resourceVersion",
  "generation",
  "selfLink",
] as const;

/**
 * Carries the server's metadata of the stored object `old` over to its update `obj`: identity,
 * creation, generation, deletion state and resourceVersion (the client cannot change them).
 */
export function keepServerMetadata(
  obj: KubeObject,
  old: KubeObject,
  name: string,
  namespace?: string,
): void {
  const meta = obj.metadata;
  meta.name = name;
  if (namespace !== undefined) meta.namespace = namespace;
  meta.uid = old.metadata.uid;
  meta.creationTimestamp = old.metadata.creationTimestamp;
  meta.generation = old.metadata.generation;
  if (old.metadata.deletionTimestamp) {
    meta.deletionTimestamp = old.metadata.deletionTimestamp;
    meta.deletionGracePeriodSeconds = old.metadata.deletionGracePeriodSeconds;
  } else {
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
  }
  delete meta.selfLink;
  meta.resourceVersion = old.metadata.resourceVersion;
}

/** Bumps the generation of `obj` when anything outside metadata and status changed. */
export function bumpGeneration(obj: KubeObject, old: KubeObject): void {
  if (specChanged(obj, old)) obj.metadata.generation = (old.metadata.generation ?? 0) + 1;
}

function specChanged(a: KubeObject, b: KubeObject): boolean {
  const x = a as unknown as Record<string, unknown>;
  const y = b as unknown as Record<string, unknown>;
  for (const k of Object.keys(x)) {
    if (k !== "metadata" && k !== "status" && !deepEqual(x[k], y[k])) return true;
  }
  for (const k of Object.keys(y)) {
    if (k !== "metadata" && k !== "status" && !(k in x) && y[k] !== undefined) return true;
  }
  return false;
}
