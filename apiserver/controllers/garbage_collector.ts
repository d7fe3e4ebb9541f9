/**
 * The garbage collector: deletes objects whose owners are all gone (background cascading
 * deletion), and serves the `orphan` and `foregroundDeletion` finalizers that DeleteOptions'
 * propagationPolicy adds: orphaning removes the owner reference from every dependent;
 * foreground deletion deletes the dependents first. Either way it then removes its
 * finalizer, and the owner goes away.
 *
 * It keeps an in-memory index of owner references, built from the state the watch caches'
 * change feed lists at start and kept current from the feed, which delivers every API
 * server's commits on a shared database in revision order (reading the watch cache's shared
 * parse of each value instead of parsing it again). It is rebuilt periodically, which retries
 * what failed.
 *
 * @module
 */
import type { KubeObject, OwnerReference } from "../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../shared/errors/status_error.ts";
import type { Logger } from "../../shared/log/mod.ts";
import type { Store } from "../registry/generic/store.ts";
import type { ResourceRegistry } from "../registry/resource_registry.ts";
import type { ChangeEvent, KeyValue } from "../storage/interface.ts";
import { parseStoredValue } from "../registry/generic/stored_value.ts";
import type { ChangeFeed } from "../watch/change_feed.ts";
import { WorkQueue } from "./work_queue.ts";

/** The finalizer of propagationPolicy=Orphan. */
export const ORPHAN_FINALIZER = "orphan";
/** The finalizer of propagationPolicy=Foreground. */
export const FOREGROUND_FINALIZER = "foregroundDeletion";

/** Options of the collector. */
export interface GarbageCollectorOptions {
  registry: ResourceRegistry;
  /** The change feed it follows (started). */
  feed: ChangeFeed;
  logger?: Logger;
  /** Full resync period in ms (default 30 s). */
  resyncMs?: number;
}

interface Entry {
  uid: string;
  owners: string[];
}

/** Collects garbage. */
export class GarbageCollector {
  readonly #opts: GarbageCollectorOptions;
  /** key → uid and owner uids. */
  #byKey = new Map<string, Entry>();
  /** uid → key. */
  #byUid = new Map<string, string>();
  /** owner uid → dependent keys. */
  #dependents = new Map<string, Set<string>>();
  /** Keys of objects that may need work. */
  readonly #queue: WorkQueue<string>;
  #unsubscribe?: () => void;
  #timer?: ReturnType<typeof setInterval>;
  /** The periodic resync in flight (stop() waits for it). */
  #resyncing?: Promise<void>;

  constructor(opts: GarbageCollectorOptions) {
    this.#opts = opts;
    this.#queue = new WorkQueue(
      (key) => this.#process(key),
      (key, err) => opts.logger?.error("gc failed", { object: key, err: String(err) }),
    );
  }

  /** Builds the index from the change feed's state and starts following its changes. */
  async start(): Promise<void> {
    if (this.#queue.stopped || this.#unsubscribe) return;
    const unsubscribe = await this.#opts.feed.follow(["/registry/"], {
      reset: (items) => this.#onReset(items),
      changes: (events) => this.#onChanges(events),
    });
    if (this.#queue.stopped) {
      unsubscribe();
      return;
    }
    this.#unsubscribe = unsubscribe;
    this.#timer = setInterval(() => {
      if (this.#resyncing) return;
      this.#resyncing = this.resync().catch((err) =>
        this.#opts.logger?.error("gc resync failed", { err: String(err) })
      ).finally(() => this.#resyncing = undefined);
    }, this.#opts.resyncMs ?? 30_000);
  }

  /** Stops and waits for the work in progress. */
  async stop(): Promise<void> {
    const stopping = this.#queue.stop();
    this.#unsubscribe?.();
    clearInterval(this.#timer);
    await this.#resyncing;
    await stopping;
  }

  /** Rebuilds the index from storage and queues every object that may need work. */
  async resync(): Promise<void> {
    const objects: [string, KubeObject][] = [];
    for (const store of this.#opts.registry.storageStores()) {
      if (store.def.virtual) continue;
      const list = await store.list("", { plan: { mode: "latest" } });
      for (const obj of list.items) {
        objects.push([store.key(obj.metadata.namespace ?? "", obj.metadata.name!), obj]);
      }
    }
    this.#rebuild(objects);
  }

  /** The feed's complete state (at start, and whenever it lists everything anew). */
  #onReset(items: KeyValue[]): void {
    const objects: [string, KubeObject][] = [];
    for (const kv of items) {
      const obj = decode(kv.value);
      if (obj) objects.push([kv.key, obj]);
    }
    this.#rebuild(objects);
  }

  /** Replaces the index with `objects` (key and object) and queues every one needing work. */
  #rebuild(objects: [string, KubeObject][]): void {
    const byKey = new Map<string, Entry>();
    const deleting: string[] = [];
    for (const [key, obj] of objects) {
      if (!obj.metadata.uid) continue;
      byKey.set(key, entryOf(obj));
      if (needsFinalizing(obj)) deleting.push(key);
    }
    this.#byKey = new Map();
    this.#byUid = new Map();
    this.#dependents = new Map();
    for (const [key, e] of byKey) this.#index(key, e);
    for (const key of deleting) this.#enqueue(key);
    // Dependents whose owners are all missing.
    for (const [key, e] of this.#byKey) {
      if (e.owners.length > 0 && e.owners.every((u) => !this.#byUid.has(u))) this.#enqueue(key);
    }
  }

  #index(key: string, e: Entry): void {
    this.#byKey.set(key, e);
    this.#byUid.set(e.uid, key);
    for (const o of e.owners) {
      let set = this.#dependents.get(o);
      if (!set) this.#dependents.set(o, set = new Set());
      set.add(key);
    }
  }

  #unindex(key: string): void {
    const e = this.#byKey.get(key);
    if (!e) return;
    this.#byKey.delete(key);
    if (this.#byUid.get(e.uid) === key) this.#byUid.delete(e.uid);
    for (const o of e.owners) this.#dependents.get(o)?.delete(key);
  }

  #onChanges(events: ChangeEvent[]): void {
    for (const ev of events) {
      if (!ev.key.startsWith("/registry/")) continue;
      let obj: KubeObject;
      try {
        // Shared with the watch cache's parse of the same commit: read only.
        obj = parseStoredValue(ev.value, ev.decoded);
      } catch {
        continue;
      }
      if (obj === null || typeof obj !== "object") continue;
      const uid = obj.metadata?.uid;
      if (!uid) continue;
      this.#unindex(ev.key);
      if (ev.type === "DELETED") {
        // Its dependents may now be orphans to collect; its owners may finish foreground.
        for (const dep of this.#dependents.get(uid) ?? []) this.#enqueue(dep);
        for (const o of entryOf(obj).owners) {
          const ownerKey = this.#byUid.get(o);
          if (ownerKey) this.#enqueue(ownerKey);
        }
        continue;
      }
      const entry = entryOf(obj);
      this.#index(ev.key, entry);
      // Also an object whose owners are all unknown here (gone, or never seen): #process
      // confirms their absence in storage before collecting it.
      const ownersUnknown = entry.owners.length > 0 &&
        entry.owners.every((u) => !this.#byUid.has(u));
      if (needsFinalizing(obj) || ownersUnknown) this.#enqueue(ev.key);
    }
  }

  #enqueue(key: string): void {
    this.#queue.add(key);
  }

  #locate(key: string): { store: Store; namespace: string; name: string } | undefined {
    for (const store of this.#opts.registry.storageStores()) {
      if (!key.startsWith(store.prefix)) continue;
      const rest = key.slice(store.prefix.length).split("/");
      return store.def.namespaced
        ? { store, namespace: rest[0], name: rest[1] }
        : { store, namespace: "", name: rest[0] };
    }
    return undefined;
  }

  async #process(key: string): Promise<void> {
    const loc = this.#locate(key);
    if (!loc) return;
    let obj: KubeObject;
    try {
      obj = await loc.store.get(loc.namespace, loc.name);
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return;
      throw err;
    }
    const refs = obj.metadata.ownerReferences ?? [];
    if (refs.length > 0 && refs.every((r) => !this.#byUid.has(r.uid))) {
      let anyOwner = false;
      for (const r of refs) anyOwner ||= await this.#ownerExists(r, loc.namespace);
      if (!anyOwner) {
        await ignoreNotFound(
          loc.store.delete(loc.namespace, loc.name, { propagationPolicy: "Background" }),
        );
        return;
      }
    }
    const fins = obj.metadata.finalizers ?? [];
    if (!obj.metadata.deletionTimestamp) return;
    const uid = obj.metadata.uid!;
    const dependents = [...(this.#dependents.get(uid) ?? [])];
    if (fins.includes(ORPHAN_FINALIZER)) {
      for (const dep of dependents) await this.#removeOwnerRef(dep, uid);
      await this.#dropFinalizer(loc, ORPHAN_FINALIZER);
      return;
    }
    if (fins.includes(FOREGROUND_FINALIZER)) {
      for (const dep of dependents) {
        const d = this.#locate(dep);
        if (d) {
          await ignoreNotFound(
            d.store.delete(d.namespace, d.name, { propagationPolicy: "Foreground" }),
          );
        }
      }
      if ((this.#dependents.get(uid)?.size ?? 0) === 0) {
        await this.#dropFinalizer(loc, FOREGROUND_FINALIZER);
      }
    }
  }

  /** Reads the owner itself: only a confirmed absence counts (unknown kinds never do). */
  async #ownerExists(ref: OwnerReference, namespace: string): Promise<boolean> {
    const group = ref.apiVersion.includes("/") ? ref.apiVersion.split("/")[0] : "";
    const store = this.#opts.registry.byKind(group, ref.kind);
    if (!store) return true;
    // A cluster-scoped dependent cannot name a namespaced owner: as in Kubernetes, such a
    // reference is unresolvable and never makes the dependent garbage.
    if (store.def.namespaced && namespace === "") return true;
    try {
      const owner = await store.get(store.def.namespaced ? namespace : "", ref.name);
      return owner.metadata.uid === ref.uid;
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return false;
      throw err;
    }
  }

  async #removeOwnerRef(key: string, ownerUid: string): Promise<void> {
    const loc = this.#locate(key);
    if (!loc) return;
    await mutate(loc, (obj) => {
      const refs = obj.metadata.ownerReferences ?? [];
      if (!refs.some((r) => r.uid === ownerUid)) return false;
      obj.metadata.ownerReferences = refs.filter((r) => r.uid !== ownerUid);
      if (obj.metadata.ownerReferences.length === 0) delete obj.metadata.ownerReferences;
      return true;
    });
  }

  async #dropFinalizer(
    loc: { store: Store; namespace: string; name: string },
    finalizer: string,
  ): Promise<void> {
    await mutate(loc, (obj) => {
      const fins = obj.metadata.finalizers ?? [];
      if (!fins.includes(finalizer)) return false;
      obj.metadata.finalizers = fins.filter((f) => f !== finalizer);
      return true;
    });
  }
}

/**
 * Lets `change` edit the stored object (returning false when nothing needs doing) through the
 * store's guaranteedUpdate, which retries on conflicts; a missing object ends it quietly.
 */
async function mutate(
  loc: { store: Store; namespace: string; name: string },
  change: (obj: KubeObject) => boolean,
): Promise<void> {
  await ignoreNotFound(
    loc.store.guaranteedUpdate(loc.namespace, loc.name, (obj) => change(obj!) ? obj : undefined),
  );
}

/** A listed value's object, or undefined for text that is not an object with metadata. */
function decode(value: string): KubeObject | undefined {
  try {
    const obj = JSON.parse(value) as KubeObject;
    return obj && typeof obj === "object" && obj.metadata ? obj : undefined;
  } catch {
    return undefined;
  }
}

function entryOf(obj: KubeObject): Entry {
  return {
    uid: obj.metadata.uid ?? "",
    owners: (obj.metadata.ownerReferences ?? []).map((r) => r.uid).filter((u) => !!u),
  };
}

function needsFinalizing(obj: KubeObject): boolean {
  const fins = obj.metadata.finalizers ?? [];
  return !!obj.metadata.deletionTimestamp &&
    (fins.includes(ORPHAN_FINALIZER) || fins.includes(FOREGROUND_FINALIZER));
}

async function ignoreNotFound(p: Promise<unknown>): Promise<void> {
  try {
    await p;
  } catch (err) {
    if (!(err instanceof StatusError && err.code === 404)) throw err;
  }
}
