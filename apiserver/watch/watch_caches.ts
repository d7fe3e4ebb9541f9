/**
 * The watch caches of the registry's stores: one cache per stored resource in a change feed,
 * given to each store as its list cache when the registry creates it, and looked up by the
 * watch handler.
 *
 * @module
 */
import type { KubeList } from "../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../shared/errors/status_error.ts";
import { apiVersionOf } from "../registry/generic/kind.ts";
import type { ListCache, ListQuery } from "../registry/generic/list_query.ts";
import type { Store } from "../registry/generic/store.ts";
import type { CachedObject } from "./cached_object.ts";
import type { ChangeFeed } from "./change_feed.ts";
import type { WatchCache } from "./watch_cache.ts";

/** A store's cache and the feed behind it. */
export interface CacheOfStore {
  feed: ChangeFeed;
  cache: WatchCache;
}

/**
 * The caches of every stored kind in one change feed. The registry calls
 * {@link WatchCaches.listCacheFor} for each store it creates (kinds added later included).
 */
export class WatchCaches {
  /** The feed that keeps the caches current. */
  readonly feed: ChangeFeed;
  readonly #caches = new WeakMap<Store, WatchCache>();
  /** The newest store of each cached prefix. */
  readonly #latest = new Map<string, Store>();

  constructor(feed: ChangeFeed) {
    this.feed = feed;
  }

  /** Creates the cache of a stored kind and returns its list cache; undefined if virtual. */
  listCacheFor(store: Store): ListCache | undefined {
    // A kind served from another's storage is watched through that kind's cache.
    if (store.def.virtual || store.def.computed || store.def.servedFrom) return undefined;
    // A kind replaced in the registry (a custom resource's definition changed) keeps its
    // cache; the cache reads selectable fields and read defaults from the newest store.
    this.#latest.set(store.prefix, store);
    const latest = () => this.#latest.get(store.prefix) ?? store;
    const cache = this.feed.cacheFor(store.prefix, {
      apiVersion: apiVersionOf(store.def),
      kind: store.def.kind,
      fieldsOf: (obj) => latest().fieldsOf(obj),
      readDefaults: store.def.applyReadDefaults
        ? (obj) => latest().def.applyReadDefaults?.(obj)
        : undefined,
    });
    this.#caches.set(store, cache);
    return new CacheLister(store, this.feed, cache);
  }

  /** Drops the cache of a store no longer served (its watchers are closed). */
  drop(store: Store): void {
    if (!this.#caches.has(store)) return;
    this.#caches.delete(store);
    this.#latest.delete(store.prefix);
    this.feed.dropCache(store.prefix);
  }

  /** The watch cache serving a store (its storage store's, for a converting one), if any. */
  cacheOf(store: Store): CacheOfStore | undefined {
    const cache = this.#caches.get(store.storageStore);
    return cache && { feed: this.feed, cache };
  }
}

/** Serves a store's lists from its cache where Kubernetes' cacher would. */
export class CacheLister implements ListCache {
  readonly #store: Store;
  readonly #feed: ChangeFeed;
  readonly #cache: WatchCache;

  constructor(store: Store, feed: ChangeFeed, cache: WatchCache) {
    this.#store = store;
    this.#feed = feed;
    this.#cache = cache;
  }

  /**
   * Answers `resourceVersion=0` (any), NotOlderThan (after waiting for the revision; 504 if it
   * does not come) and consistent lists (after catching up with storage) without paging;
   * undefined (storage serves it) for everything else or while the cache is not synced.
   */
  async list(namespace: string, query: ListQuery): Promise<KubeList | undefined> {
    if (!this.#feed.synced || query.limit) return undefined;
    const plan = query.plan;
    if (plan.mode === "latest") {
      if (!await this.#feed.waitFresh()) return undefined;
    } else if (plan.mode === "notOlderThan") {
      if (!await this.#feed.waitFor(plan.revision)) {
        throw StatusError.tooLargeResourceVersion(plan.revision, this.#feed.revision);
      }
    } else if (plan.mode !== "any") {
      return undefined;
    }
    if (!this.#feed.synced || !this.#cache.ready) return undefined;
    const filter = query.labels || query.fields
      ? (o: CachedObject) =>
        (!query.labels || query.labels(o.labels)) && (!query.fields || query.fields(o.fields))
      : undefined;
    const def = this.#store.def;
    const apiVersion = apiVersionOf(def);
    const revision = this.#feed.revision;
    const items = this.#cache.snapshot(this.#store.listPrefix(namespace), filter).map((o) =>
      JSON.parse(o.json)
    );
    return {
      kind: `${def.kind}List`,
      apiVersion,
      metadata: { resourceVersion: String(revision) },
      items,
    };
  }
}
