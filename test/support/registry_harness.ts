/**
 * Real storage for unit tests of stores, controllers and registry consumers: a LibsqlStorage
 * file in a fresh temp directory (background maintenance off), optionally with a
 * ResourceRegistry of every built-in kind over it. `close()` closes the storage and removes
 * the directory.
 *
 * ```ts
 * await withRegistryHarness("my_test_", async (h) => {
 *   const configMaps = h.store("", "v1", "configmaps");
 * });
 * ```
 *
 * @module
 */
import { BUILTIN_KINDS } from "../../apiserver/registry/builtin_kinds.ts";
import type { Store } from "../../apiserver/registry/generic/store.ts";
import { ResourceRegistry } from "../../apiserver/registry/resource_registry.ts";
import { ServedVersions } from "../../apiserver/registry/runtime_config.ts";
import type { Storage } from "../../apiserver/storage/interface.ts";
import { LibsqlStorage } from "../../apiserver/storage/libsql/libsql_storage.ts";
import { StatusError } from "../../shared/errors/status_error.ts";

/** A LibsqlStorage over a file in its own temp directory. */
export interface TempStorage {
  /** The temp directory, removed by `close()`. */
  dir: string;
  /** The storage file's URL, to open a second instance over the same file. */
  url: string;
  storage: LibsqlStorage;
  /** Closes the storage and removes the directory. */
  close(): Promise<void>;
}

/** Opens a LibsqlStorage (maintenance off) in a new temp directory named with `prefix`. */
export async function openTempStorage(prefix: string): Promise<TempStorage> {
  const dir = await Deno.makeTempDir({ prefix });
  const url = `file:${dir}/state.db`;
  let storage: LibsqlStorage;
  try {
    storage = await LibsqlStorage.open({ url, maintenanceIntervalMs: 0 });
  } catch (err) {
    await Deno.remove(dir, { recursive: true });
    throw err;
  }
  return {
    dir,
    url,
    storage,
    async close() {
      await storage.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

async function closing<H extends { close(): Promise<void> }, T>(
  h: H,
  fn: (h: H) => Promise<T>,
): Promise<T> {
  try {
    return await fn(h);
  } finally {
    await h.close();
  }
}

/** Runs `fn` with a {@linkcode TempStorage}, closed and removed afterwards. */
export async function withTempStorage<T>(
  prefix: string,
  fn: (s: TempStorage) => Promise<T>,
): Promise<T> {
  return closing(await openTempStorage(prefix), fn);
}

/**
 * A registry of every built-in kind over `storage`, served as the server serves them by
 * default (alpha and most beta versions off, as `--runtime-config` leaves them).
 */
export function builtinRegistry(storage: Storage): ResourceRegistry {
  const servedVersions = new ServedVersions(undefined);
  servedVersions.setBuiltins(BUILTIN_KINDS);
  const registry = new ResourceRegistry({ storage, served: (def) => servedVersions.serves(def) });
  for (const k of BUILTIN_KINDS) registry.add(k);
  return registry;
}

/** A {@linkcode TempStorage} with a registry of every built-in kind over it. */
export interface RegistryHarness extends TempStorage {
  registry: ResourceRegistry;
  /** The store of a resource; throws where the registry has none. */
  store(group: string, version: string, resource: string): Store;
}

/** Opens a {@linkcode RegistryHarness} in a new temp directory named with `prefix`. */
export async function openRegistryHarness(prefix: string): Promise<RegistryHarness> {
  const temp = await openTempStorage(prefix);
  const registry = builtinRegistry(temp.storage);
  return {
    ...temp,
    registry,
    store(group, version, resource) {
      const store = registry.lookup(group, version, resource);
      if (!store) throw new Error(`no store for ${group}/${version}/${resource}`);
      return store;
    },
  };
}

/** Runs `fn` with a {@linkcode RegistryHarness}, closed and removed afterwards. */
export async function withRegistryHarness<T>(
  prefix: string,
  fn: (h: RegistryHarness) => Promise<T>,
): Promise<T> {
  return closing(await openRegistryHarness(prefix), fn);
}

/** True when `store` has no object `namespace/name` (its get answers 404). */
export async function gone(store: Store, namespace: string, name: string): Promise<boolean> {
  try {
    await store.get(namespace, name);
    return false;
  } catch (err) {
    if (err instanceof StatusError && err.code === 404) return true;
    throw err;
  }
}
