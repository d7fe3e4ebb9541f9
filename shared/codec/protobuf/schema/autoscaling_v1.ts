/**
 * Message descriptors of autoscaling/v1 (k8s.io/api/autoscaling/v1), Kubernetes 1.32: the Scale
 * kind served by the `scale` subresources of apps/v1.
 *
 * Field numbers, wire types and JSON names are the facts of the upstream API types; the table format
 * is ours (see {@link MessageTable}).
 *
 * @module
 */
import type { MessageTable } from "../message_descriptor.ts";

/** Messages of autoscaling/v1 (k8s.io/api/autoscaling/v1) used by the scale subresources. */
export const autoscalingV1Messages: MessageTable = {
  "autoscaling.v1.Scale": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "spec", "autoscaling.v1.ScaleSpec"],
    [3, "status", "autoscaling.v1.ScaleStatus"],
  ],
  "autoscaling.v1.ScaleSpec": [
    [1, "replicas", "int32"],
  ],
  "autoscaling.v1.ScaleStatus": [
    [1, "replicas", "int32", 1],
    [2, "selector", "string"],
  ],
};
