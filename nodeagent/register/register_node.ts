/**
 * Registration: create the Node, or adopt an existing Node of the same name (the kubelet's
 * `tryRegisterWithAPIServer`): the automatic labels are put back if missing or changed, and the
 * status is replaced by the agent's. Retried with the lease backoff until it succeeds.
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import type { RestClient } from "../../shared/client/rest_client.ts";
import type { Logger } from "../../shared/log/mod.ts";
import { retryWithBackoff } from "../lease/backoff.ts";
import type { Clock } from "../clock/clock.ts";
import { apiCall, isStatus } from "../client/api_call.ts";

/** The core/v1 nodes resource. */
export const NODES = { version: "v1", resource: "nodes" } as const;

/** Options of {@link registerNode}. */
export interface RegisterOptions {
  client: RestClient;
  clock: Clock;
  logger?: Logger;
  /** Stops retrying (then resolves to undefined). */
  signal?: AbortSignal;
}

/**
 * Creates `node`, or adopts the existing Node of that name; returns the Node as stored.
 * Keeps retrying with backoff while the server is unreachable.
 */
export function registerNode(
  node: KubeObject,
  opts: RegisterOptions,
): Promise<KubeObject | undefined> {
  return retryWithBackoff(() => registerOnce(node, opts), {
    clock: opts.clock,
    signal: opts.signal,
    onError: (err, wait) =>
      opts.logger?.warn("node registration failed, retrying", {
        node: node.metadata.name,
        err: String(err),
        retryInMs: wait,
      }),
  });
}

async function registerOnce(node: KubeObject, opts: RegisterOptions): Promise<KubeObject> {
  const name = node.metadata.name!;
  try {
    const created = await apiCall<KubeObject>(opts.client, "POST", NODES, { body: node });
    opts.logger?.info("node registered", { node: name });
    return created;
  } catch (err) {
    if (!isStatus(err, 409)) throw err;
  }
  // It exists: adopt it.
  for (;;) {
    const existing = await apiCall<KubeObject>(opts.client, "GET", { ...NODES, name });
    const labels = { ...(existing.metadata.labels ?? {}) };
    let changed = false;
    for (const [k, v] of Object.entries(node.metadata.labels ?? {})) {
      if (labels[k] !== v) {
        labels[k] = v;
        changed = true;
      }
    }
    const annotations = { ...(existing.metadata.annotations ?? {}) };
    for (const [k, v] of Object.entries(node.metadata.annotations ?? {})) {
      if (annotations[k] !== v) {
        annotations[k] = v;
        changed = true;
      }
    }
    let current = existing;
    try {
      if (changed) {
        current = await apiCall<KubeObject>(opts.client, "PUT", { ...NODES, name }, {
          body: { ...existing, metadata: { ...existing.metadata, labels, annotations } },
        });
      }
      current = await apiCall<KubeObject>(opts.client, "PUT", {
        ...NODES,
        name,
        subresource: "status",
      }, { body: { ...current, status: node.status } });
    } catch (err) {
      if (isStatus(err, 409)) continue; // changed under us: read again
      throw err;
    }
    opts.logger?.info("node adopted", { node: name });
    return current;
  }
}
