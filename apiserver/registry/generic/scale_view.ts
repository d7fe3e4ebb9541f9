/**
 * The autoscaling/v1 Scale an object's `scale` subresource answers: the object's identity with
 * the replicas and selector read from it (workloads and custom resources read them differently).
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";

/** A Scale of `obj` with the given spec and status. */
export function scaleView(
  obj: KubeObject,
  spec: Record<string, unknown>,
  status: Record<string, unknown>,
): KubeObject {
  const m = obj.metadata;
  return {
    kind: "Scale",
    apiVersion: "autoscaling/v1",
    metadata: {
      name: m.name,
      namespace: m.namespace,
      uid: m.uid,
      resourceVersion: m.resourceVersion,
      creationTimestamp: m.creationTimestamp,
    },
    spec,
    status,
  };
}
