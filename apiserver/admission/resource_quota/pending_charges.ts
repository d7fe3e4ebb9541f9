/**
 * The charges the ResourceQuota admission made whose object is not stored yet. A quota's usage
 * is charged before its object is written; a recount between the two would miss the object
 * and lower the usage below what is admitted. The quota controller recounts a namespace only
 * once the change feed has delivered a write of each charged object after its charge (or the
 * charge is older than {@link PENDING_EXPIRY_MS}: its write failed).
 *
 * @module
 */

/** How long an unseen charge holds back recounts of its namespace (ms). */
export const PENDING_EXPIRY_MS = 30_000;

/** One charge waiting for its object's write. */
interface Pending {
  /** `<group or core>/<plural>/<namespace>/<name>`: the object's key below `/registry/`. */
  key: string;
  /** A write of the object at a later revision than this settles it. */
  afterRevision: number;
  at: number;
}

/** The pending charges of this process, by namespace. */
export class PendingCharges {
  readonly #byNamespace = new Map<string, Set<Pending>>();

  /**
   * Records a charge for an object about to be written; returns the entry, to be given its
   * quota revision by {@link charged} or dropped by {@link cancel}.
   */
  add(namespace: string, group: string, plural: string, name: string): object {
    this.hasPending(namespace); // drops the expired ones, so an unwatched set stays small
    const entry: Pending = {
      key: `${group || "core"}/${plural}/${namespace}/${name}`,
      afterRevision: 0,
      at: Date.now(),
    };
    let set = this.#byNamespace.get(namespace);
    if (!set) this.#byNamespace.set(namespace, set = new Set());
    set.add(entry);
    return entry;
  }

  /** The charge committed at `revision`: only a later write of the object settles it. */
  charged(entry: object, revision: number): void {
    (entry as Pending).afterRevision = revision;
  }

  /** The charge was not made. */
  cancel(namespace: string, entry: object): void {
    this.#byNamespace.get(namespace)?.delete(entry as Pending);
  }

  /** A committed write of the object at `/registry/<key>` (from the change feed). */
  observe(registryKey: string, revision: number): void {
    const parts = registryKey.split("/");
    const set = parts.length === 6 ? this.#byNamespace.get(parts[4]) : undefined;
    if (!set) return;
    const key = parts.slice(2).join("/");
    for (const p of set) if (p.key === key && revision > p.afterRevision) set.delete(p);
    if (set.size === 0) this.#byNamespace.delete(parts[4]);
  }

  /** Whether `namespace` has charges whose object is not seen written yet. */
  hasPending(namespace: string, now = Date.now()): boolean {
    const set = this.#byNamespace.get(namespace);
    if (!set) return false;
    for (const p of set) if (now - p.at > PENDING_EXPIRY_MS) set.delete(p);
    if (set.size === 0) this.#byNamespace.delete(namespace);
    return set.size > 0;
  }
}
