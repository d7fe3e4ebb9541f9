/**
 * ControllerRevisions of StatefulSets and DaemonSets, as kube's `history` package keeps them:
 * a revision's data is the patch that restores the pod template
 * (`{"spec":{"template":{...,"$patch":"replace"}}}`), its hash is the FNV-32 of that data
 * (plus the collision count) encoded with `SafeEncodeString`, its name is
 * `<owner>-<hash>`, and its number is one above the highest of the owner's revisions.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { deepEqual } from "../../../shared/json/deep_equal.ts";
import { isObject } from "../../../shared/json/is_object.ts";
import type { Store } from "../../registry/generic/store.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import { controllerRef } from "./pod_from_template.ts";

/** The label of pods (and DaemonSet revisions) that names their revision. */
export const REVISION_HASH_LABEL = "controller-revision-hash";
/** The label with a StatefulSet revision's hash. */
export const STATEFUL_HASH_LABEL = "controller.kubernetes.io/hash";

const ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789";

/** kube's `rand.SafeEncodeString`: each character mapped into a vowel-free alphabet. */
export function safeEncodeString(s: string): string {
  let out = "";
  for (let i = 0; i < s.length; i++) out += ALPHANUMS[s.charCodeAt(i) % ALPHANUMS.length];
  return out;
}

/** FNV-1 (32-bit) of `bytes`, as Go's `hash/fnv.New32`. */
export function fnv32(bytes: Uint8Array, hash = 0x811c9dc5): number {
  for (const b of bytes) {
    hash = Math.imul(hash, 0x01000193) >>> 0;
    hash = (hash ^ b) >>> 0;
  }
  return hash;
}

/** The revision data of a workload: the patch restoring its pod template. */
export function revisionData(owner: KubeObject): Record<string, unknown> {
  const spec = isObject(owner.spec) ? owner.spec : {};
  const template = isObject(spec.template) ? structuredClone(spec.template) : {};
  return { spec: { template: { ...template, "$patch": "replace" } } };
}

/** kube's `HashControllerRevision` of `data` with the owner's collision count. */
export function revisionHash(data: unknown, collisionCount?: number): string {
  const enc = new TextEncoder();
  let h = fnv32(enc.encode(JSON.stringify(data)));
  if (collisionCount !== undefined) h = fnv32(enc.encode(String(collisionCount)), h);
  return safeEncodeString(String(h));
}

/** The owner's revisions, current and history, from the revisions store. */
export async function ownedRevisions(store: Store, owner: KubeObject): Promise<KubeObject[]> {
  const list = await store.list(owner.metadata.namespace!, { plan: { mode: "latest" } });
  return list.items.filter((r) =>
    (r.metadata.ownerReferences ?? []).some((o) => o.uid === owner.metadata.uid && o.controller)
  ).sort((a, b) => Number(a.revision ?? 0) - Number(b.revision ?? 0));
}

/**
 * The revision of the owner's current template: an existing one with equal data (its number
 * raised to the newest when it is not), or a new one. Answers it and the owner's revisions.
 */
export async function currentRevision(
  store: Store,
  owner: KubeObject,
  apiVersion: string,
  kind: string,
  hashLabel = REVISION_HASH_LABEL,
): Promise<{ revision: KubeObject; revisions: KubeObject[] }> {
  const revisions = await ownedRevisions(store, owner);
  const data = revisionData(owner);
  const top = revisions.reduce((m, r) => Math.max(m, Number(r.revision ?? 0)), 0);
  const equal = revisions.find((r) => deepEqual(r.data, data));
  if (equal) {
    if (Number(equal.revision) === top) return { revision: equal, revisions };
    const { object } = await store.guaranteedUpdate(
      owner.metadata.namespace!,
      equal.metadata.name!,
      (r) => r ? { ...r, revision: top + 1 } : undefined,
    );
    return { revision: object, revisions: revisions.map((r) => r === equal ? object : r) };
  }
  const status = isObject(owner.status) ? owner.status : {};
  const collisions = typeof status.collisionCount === "number" ? status.collisionCount : 0;
  const hash = revisionHash(data, collisions);
  const labels = { ...templateLabelsOf(owner), [hashLabel]: hash };
  const body: KubeObject = {
    apiVersion: "apps/v1",
    kind: "ControllerRevision",
    metadata: {
      name: `${owner.metadata.name!.slice(0, 223)}-${hash}`,
      namespace: owner.metadata.namespace,
      labels,
      ownerReferences: [controllerRef(owner, apiVersion, kind)],
    },
    data,
    revision: top + 1,
  };
  try {
    const created = await store.create(owner.metadata.namespace!, body);
    return { revision: created, revisions: [...revisions, created] };
  } catch (err) {
    if (!(err instanceof StatusError && err.code === 409)) throw err;
    const existing = await store.get(owner.metadata.namespace!, body.metadata.name!);
    if (deepEqual(existing.data, data)) return { revision: existing, revisions };
    throw err; // a hash collision: the next sync counts it (not expected in practice)
  }
}

/** Deletes the oldest revisions past `limit` that are not `inUse` (by a pod or the status). */
export async function truncateHistory(
  store: Store,
  revisions: KubeObject[],
  inUse: (revision: KubeObject) => boolean,
  limit: number,
): Promise<void> {
  const history = revisions.filter((r) => !inUse(r));
  for (const r of history.slice(0, Math.max(0, history.length - limit))) {
    await store.delete(r.metadata.namespace!, r.metadata.name!).catch(() => {});
  }
}

function templateLabelsOf(owner: KubeObject): Record<string, string> {
  const spec = isObject(owner.spec) ? owner.spec : {};
  const t = isObject(spec.template) ? spec.template : {};
  const meta = isObject(t.metadata) ? t.metadata : {};
  return { ...(meta.labels as Record<string, string> ?? {}) };
}
