/**
 * The set of served kinds and their stores, looked up by group, version and resource.
 * Kinds can be added at run time (custom resources later), and listeners hear about it so
 * discovery stays current.
 *
 * @module
 */
import type { Storage } from "../storage/interface.ts";
import {
  AdmissionChain,
  type AdmissionObserver,
  type AdmissionPlugin,
} from "./generic/admission.ts";
import type { Clock } from "./generic/clock.ts";
import { apiVersionOf, type KindDef } from "./generic/kind.ts";
import { ConvertingStore } from "./generic/converting_store.ts";
import { withOutagesAs503 } from "./generic/outage_storage.ts";
import type { ListCache } from "./generic/list_query.ts";
import { Store, type StoreOptions } from "./generic/store.ts";

/** Options of the registry, passed on to every store. */
export interface ResourceRegistryOptions {
  storage: Storage;
  clock?: Clock;
  /**
   * The admission plugins every store runs, in order; called once, by the constructor, with
   * the registry they may read through (lazily: no kind exists yet).
   */
  admissionPlugins?: (registry: ResourceRegistry) => AdmissionPlugin[];
  /** Hears how long admission phases and plugins take (the admission metrics). */
  admissionObserver?: AdmissionObserver;
  /** Gives each new store its list cache (the watch caches). */
  listCacheFor?: (store: Store) => ListCache | undefined;
  /** Drops the list cache of a store that is removed (custom resources). */
  dropListCache?: (store: Store) => void;
  resourceVersionWaitMs?: number;
  /**
   * Whether requests reach a kind (`--runtime-config`); default all. A kind not served keeps
   * its store: the server and the kinds served from it still use it.
   */
  served?: (def: KindDef) => boolean;
}

/** Served kinds and their stores. */
export class ResourceRegistry {
  readonly #stores = new Map<string, Store>();
  /** Stores of kinds that hold objects but are not served (see addUnserved). */
  readonly #unserved = new Map<string, Store>();
  readonly #listeners = new Set<() => void>();
  readonly #storeOptions: StoreOptions;
  readonly #dropListCache?: (store: Store) => void;
  readonly #served: (def: KindDef) => boolean;

  constructor(opts: ResourceRegistryOptions) {
    const { admissionPlugins, admissionObserver, dropListCache, served, ...storeOptions } = opts;
    this.#dropListCache = dropListCache;
    this.#served = served ?? (() => true);
    const plugins = admissionPlugins?.(this);
    this.#storeOptions = {
      ...storeOptions,
      // The registry boundary: a storage outage is a 503 from here up.
      storage: withOutagesAs503(opts.storage),
      admission: plugins ? new AdmissionChain(plugins, admissionObserver) : undefined,
    };
  }

  /**
   * Adds a kind; replaces one with the same group, version and resource. A kind served from
   * another kind's storage (`servedFrom`) needs that kind added first.
   */
  add(def: KindDef): Store {
    const store = def.servedFrom ? this.#converting(def) : new Store(def, this.#storeOptions);
    this.#stores.set(ResourceRegistry.#id(def.group, def.version, def.plural), store);
    // A served store of the same objects replaces an unserved one.
    for (const [id, s] of this.#unserved) {
      if (s.prefix === store.prefix && s !== store.storageStore) this.#unserved.delete(id);
    }
    for (const l of this.#listeners) l();
    return store;
  }

  /**
   * Adds a kind that holds objects but is not served (a custom resource's storage version
   * that is not served): kinds served from it (`servedFrom`) find its store and controllers
   * see its objects (storageStores), but no request reaches it. Replaces one with the same
   * group, version and resource.
   */
  addUnserved(def: KindDef): Store {
    const store = new Store(def, this.#storeOptions);
    this.#unserved.set(ResourceRegistry.#id(def.group, def.version, def.plural), store);
    return store;
  }

  /**
   * Stops serving a resource (a custom resource whose definition went away, or one of its
   * versions), served or unserved. Listeners hear about it; the list cache of the objects it
   * held is dropped once no other kind holds them.
   */
  remove(group: string, version: string, resource: string): void {
    const id = ResourceRegistry.#id(group, version, resource);
    const store = this.#stores.get(id) ?? this.#unserved.get(id);
    if (!store) return;
    this.#stores.delete(id);
    this.#unserved.delete(id);
    const held = store.storageStore;
    if (!this.storageStores().some((s) => s.prefix === held.prefix)) {
      this.#dropListCache?.(held);
    }
    for (const l of this.#listeners) l();
  }

  #converting(def: KindDef): Store {
    const stored = def.servedFrom!.storage;
    const id = (k: KindDef) => ResourceRegistry.#id(k.group, k.version, k.plural);
    // Served from itself: the stored form's store is this kind's own, kept here only.
    const inner = id(stored) === id(def)
      ? new Store(stored, this.#storeOptions)
      : this.lookup(stored.group, stored.version, stored.plural)?.storageStore ??
        this.#unserved.get(id(stored));
    if (!inner) {
      throw new Error(
        `${def.kind} ${apiVersionOf(def)} is served from ${stored.plural} ${
          apiVersionOf(stored)
        }, which is not registered`,
      );
    }
    return new ConvertingStore(def, inner, this.#storeOptions);
  }

  /** The store of a resource, if served. */
  lookup(group: string, version: string, resource: string): Store | undefined {
    return this.#stores.get(ResourceRegistry.#id(group, version, resource));
  }

  /** The store of a kind by group and kind name (first served version). */
  byKind(group: string, kind: string): Store | undefined {
    for (const s of this.#stores.values()) {
      if (s.def.group === group && s.def.kind === kind) return s;
    }
    return undefined;
  }

  /** Every store, in registration order. */
  all(): Store[] {
    return [...this.#stores.values()];
  }

  /**
   * The stores that hold objects, one per key prefix: every store that is not served from
   * another's, the private stored-form store of each kind served from itself, and the stores
   * of unserved kinds.
   */
  storageStores(): Store[] {
    const byPrefix = new Map<string, Store>();
    for (const s of [...this.all().map((s) => s.storageStore), ...this.#unserved.values()]) {
      if (!byPrefix.has(s.prefix)) byPrefix.set(s.prefix, s);
    }
    return [...byPrefix.values()];
  }

  /** The store of a resource requests may reach (see {@link ResourceRegistryOptions.served}). */
  lookupServed(group: string, version: string, resource: string): Store | undefined {
    const store = this.lookup(group, version, resource);
    return store && this.#served(store.def) ? store : undefined;
  }

  /** The stores requests may reach: discovery, OpenAPI and routing show these only. */
  served(): Store[] {
    return this.all().filter((s) => this.#served(s.def));
  }

  /** Whether a group/version is served to requests. */
  servesGroupVersion(group: string, version: string): boolean {
    return this.served().some((s) => s.def.group === group && s.def.version === version);
  }

  /** Calls `listener` whenever the set of kinds changes. Returns an unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  static #id(group: string, version: string, resource: string): string {
    return `${group}/${version}/${resource}`;
  }
}
