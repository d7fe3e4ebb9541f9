/**
 * The check that a written object is the one the URL names: its name (when the URL has one) and,
 * for namespaced kinds, its namespace.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";

/**
 * 400 when `obj` names another namespace (or `name`) than the URL; then sets its namespace
 * from the URL, or removes it for a cluster-scoped kind.
 */
export function checkTarget(
  obj: KubeObject,
  namespaced: boolean,
  namespace: string,
  name?: string,
): void {
  if (name !== undefined && obj.metadata.name !== undefined && obj.metadata.name !== name) {
    throw StatusError.badRequest(
      `the name of the object (${obj.metadata.name}) does not match the name on the URL (${name})`,
    );
  }
  if (!namespaced) {
    delete obj.metadata.namespace;
    return;
  }
  const inBody = obj.metadata.namespace;
  if (inBody && inBody !== namespace) {
    throw StatusError.badRequest(
      "the namespace of the provided object does not match the namespace sent on the request",
    );
  }
  obj.metadata.namespace = namespace;
}
