/**
 * How authenticators read API objects (bootstrap token Secrets, service accounts and the
 * objects tokens are bound to): through the registry's stores, so they see exactly what the
 * API serves. A missing object is `undefined`, any other failure throws.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";

/** Reads one object of a core/v1 (or other) resource; undefined when it does not exist. */
export type ObjectGetter = (
  resource: { group: string; version: string; resource: string },
  namespace: string,
  name: string,
) => Promise<KubeObject | undefined>;

/** Finds the store of a resource (the registry); undefined when no such resource is served. */
export interface StoreLookup {
  lookup(
    group: string,
    version: string,
    resource: string,
  ): { get(namespace: string, name: string): Promise<KubeObject> } | undefined;
}

/** An ObjectGetter over a registry (looked up at call time, so kinds added later are seen). */
export function registryGetter(registry: StoreLookup): ObjectGetter {
  return async (r, namespace, name) => {
    const store = registry.lookup(r.group, r.version, r.resource);
    if (!store) return undefined;
    try {
      return await store.get(namespace, name);
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return undefined;
      throw err;
    }
  };
}

/** The core/v1 resources authenticators read. */
export const CORE = {
  secrets: { group: "", version: "v1", resource: "secrets" },
  serviceaccounts: { group: "", version: "v1", resource: "serviceaccounts" },
  pods: { group: "", version: "v1", resource: "pods" },
  nodes: { group: "", version: "v1", resource: "nodes" },
} as const;
