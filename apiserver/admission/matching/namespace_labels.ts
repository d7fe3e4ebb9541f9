/**
 * The namespace labels lookup the matcher needs, read through the Namespace store.
 *
 * @module
 */
import { StatusError } from "../../../shared/errors/status_error.ts";
import type { Store } from "../../registry/generic/store.ts";
import type { NamespaceLabels } from "./resource_matcher.ts";

/** Reads a namespace's labels through `namespaces()`; undefined when it does not exist. */
export function namespaceLabelsFrom(namespaces: () => Store | undefined): NamespaceLabels {
  return async (name) => {
    const store = namespaces();
    if (!store || !name) return undefined;
    try {
      return (await store.get("", name)).metadata.labels ?? {};
    } catch (e) {
      if (e instanceof StatusError && e.code === 404) return undefined;
      throw e;
    }
  };
}
