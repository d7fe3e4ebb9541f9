/**
 * Subresources served before what they reach exists: the streaming and proxy subresources
 * (`pods/exec`, `nodes/proxy`, `services/proxy`, ...) are listed in discovery with kube's verbs
 * and kinds, authorized as usual, and answer 503 with a clear message at any path below them.
 *
 * @module
 */
import type { SubresourceDef, Verb } from "./kind.ts";

/** The verbs of a proxy subresource. */
export const PROXY_VERBS: readonly Verb[] = ["create", "delete", "get", "patch", "update"];

/**
 * The subresource `resource` (`<plural>/<name>`) with `verbs`, whose requests are 503 until
 * the server can reach workloads; `kind` is its core/v1 options kind, if it has one.
 */
export function unavailableSubresource(
  resource: string,
  verbs: readonly Verb[],
  kind?: string,
): SubresourceDef {
  const name = resource.slice(resource.indexOf("/") + 1);
  return {
    name,
    verbs,
    ...(kind ? { requestKind: { group: "", version: "v1", kind } } : {}),
    unavailable:
      `${resource} is not available: this server does not yet connect to the node agents that run workloads`,
  };
}
