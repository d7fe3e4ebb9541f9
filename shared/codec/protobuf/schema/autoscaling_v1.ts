/**
 * Message descriptors of autoscaling/v1 (k8s.io/api/autoscaling/v1), Kubernetes 1.32: the Scale
 * kind served by the `scale` subresources of apps/v1, and HorizontalPodAutoscaler (served from
 * autoscaling/v2).
 *
 * Field numbers, wire types and JSON names are the facts of the upstream API types; the table format
 * is ours (see {@link MessageTable}).
 *
 * @module
 */
import { KEEP_ZERO, type MessageTable } from "../message_descriptor.ts";

/** Messages of autoscaling/v1 (k8s.io/api/autoscaling/v1): Scale and HorizontalPodAutoscaler. */
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
  "autoscaling.v1.HorizontalPodAutoscaler": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "spec", "autoscaling.v1.HorizontalPodAutoscalerSpec"],
    [3, "status", "autoscaling.v1.HorizontalPodAutoscalerStatus"],
  ],
  "autoscaling.v1.HorizontalPodAutoscalerList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]autoscaling.v1.HorizontalPodAutoscaler"],
  ],
  "autoscaling.v1.HorizontalPodAutoscalerSpec": [
    [1, "scaleTargetRef", "autoscaling.v1.CrossVersionObjectReference"],
    [2, "minReplicas", "int32", KEEP_ZERO],
    [3, "maxReplicas", "int32", KEEP_ZERO],
    [4, "targetCPUUtilizationPercentage", "int32", KEEP_ZERO],
  ],
  "autoscaling.v1.CrossVersionObjectReference": [
    [1, "kind", "string", KEEP_ZERO],
    [2, "name", "string", KEEP_ZERO],
    [3, "apiVersion", "string"],
  ],
  "autoscaling.v1.HorizontalPodAutoscalerStatus": [
    [1, "observedGeneration", "int64", KEEP_ZERO],
    [2, "lastScaleTime", "meta.v1.Time"],
    [3, "currentReplicas", "int32", KEEP_ZERO],
    [4, "desiredReplicas", "int32", KEEP_ZERO],
    [5, "currentCPUUtilizationPercentage", "int32", KEEP_ZERO],
  ],
};
