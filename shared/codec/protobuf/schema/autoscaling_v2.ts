/**
 * Message descriptors of autoscaling/v2 (k8s.io/api/autoscaling/v2), Kubernetes 1.32: the
 * HorizontalPodAutoscaler, stored in this version.
 *
 * Field numbers, wire types and JSON names are the facts of the upstream API types; the table format
 * is ours (see {@link MessageTable}).
 *
 * @module
 */
import { KEEP_ZERO, type MessageTable } from "../message_descriptor.ts";

/** Messages of autoscaling/v2 (k8s.io/api/autoscaling/v2). */
export const autoscalingV2Messages: MessageTable = {
  "autoscaling.v2.HorizontalPodAutoscaler": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "spec", "autoscaling.v2.HorizontalPodAutoscalerSpec"],
    [3, "status", "autoscaling.v2.HorizontalPodAutoscalerStatus"],
  ],
  "autoscaling.v2.HorizontalPodAutoscalerList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]autoscaling.v2.HorizontalPodAutoscaler"],
  ],
  "autoscaling.v2.HorizontalPodAutoscalerSpec": [
    [1, "scaleTargetRef", "autoscaling.v2.CrossVersionObjectReference"],
    [2, "minReplicas", "int32", KEEP_ZERO],
    [3, "maxReplicas", "int32", KEEP_ZERO],
    [4, "metrics", "[]autoscaling.v2.MetricSpec"],
    [5, "behavior", "autoscaling.v2.HorizontalPodAutoscalerBehavior"],
  ],
  "autoscaling.v2.CrossVersionObjectReference": [
    [1, "kind", "string", KEEP_ZERO],
    [2, "name", "string", KEEP_ZERO],
    [3, "apiVersion", "string"],
  ],
  "autoscaling.v2.HorizontalPodAutoscalerBehavior": [
    [1, "scaleUp", "autoscaling.v2.HPAScalingRules"],
    [2, "scaleDown", "autoscaling.v2.HPAScalingRules"],
  ],
  "autoscaling.v2.HPAScalingRules": [
    [3, "stabilizationWindowSeconds", "int32", KEEP_ZERO],
    [1, "selectPolicy", "string", KEEP_ZERO],
    [2, "policies", "[]autoscaling.v2.HPAScalingPolicy"],
  ],
  "autoscaling.v2.HPAScalingPolicy": [
    [1, "type", "string", KEEP_ZERO],
    [2, "value", "int32", KEEP_ZERO],
    [3, "periodSeconds", "int32", KEEP_ZERO],
  ],
  "autoscaling.v2.MetricSpec": [
    [1, "type", "string", KEEP_ZERO],
    [2, "object", "autoscaling.v2.ObjectMetricSource"],
    [3, "pods", "autoscaling.v2.PodsMetricSource"],
    [4, "resource", "autoscaling.v2.ResourceMetricSource"],
    [7, "containerResource", "autoscaling.v2.ContainerResourceMetricSource"],
    [5, "external", "autoscaling.v2.ExternalMetricSource"],
  ],
  "autoscaling.v2.ObjectMetricSource": [
    [1, "describedObject", "autoscaling.v2.CrossVersionObjectReference"],
    [2, "target", "autoscaling.v2.MetricTarget"],
    [3, "metric", "autoscaling.v2.MetricIdentifier"],
  ],
  "autoscaling.v2.PodsMetricSource": [
    [1, "metric", "autoscaling.v2.MetricIdentifier"],
    [2, "target", "autoscaling.v2.MetricTarget"],
  ],
  "autoscaling.v2.ResourceMetricSource": [
    [1, "name", "string", KEEP_ZERO],
    [2, "target", "autoscaling.v2.MetricTarget"],
  ],
  "autoscaling.v2.ContainerResourceMetricSource": [
    [1, "name", "string", KEEP_ZERO],
    [2, "target", "autoscaling.v2.MetricTarget"],
    [3, "container", "string", KEEP_ZERO],
  ],
  "autoscaling.v2.ExternalMetricSource": [
    [1, "metric", "autoscaling.v2.MetricIdentifier"],
    [2, "target", "autoscaling.v2.MetricTarget"],
  ],
  "autoscaling.v2.MetricIdentifier": [
    [1, "name", "string", KEEP_ZERO],
    [2, "selector", "meta.v1.LabelSelector"],
  ],
  "autoscaling.v2.MetricTarget": [
    [1, "type", "string", KEEP_ZERO],
    [2, "value", "resource.Quantity"],
    [3, "averageValue", "resource.Quantity"],
    [4, "averageUtilization", "int32", KEEP_ZERO],
  ],
  "autoscaling.v2.HorizontalPodAutoscalerStatus": [
    [1, "observedGeneration", "int64", KEEP_ZERO],
    [2, "lastScaleTime", "meta.v1.Time"],
    [3, "currentReplicas", "int32"],
    [4, "desiredReplicas", "int32", KEEP_ZERO],
    [5, "currentMetrics", "[]autoscaling.v2.MetricStatus"],
    [6, "conditions", "[]autoscaling.v2.HorizontalPodAutoscalerCondition"],
  ],
  "autoscaling.v2.MetricStatus": [
    [1, "type", "string", KEEP_ZERO],
    [2, "object", "autoscaling.v2.ObjectMetricStatus"],
    [3, "pods", "autoscaling.v2.PodsMetricStatus"],
    [4, "resource", "autoscaling.v2.ResourceMetricStatus"],
    [7, "containerResource", "autoscaling.v2.ContainerResourceMetricStatus"],
    [5, "external", "autoscaling.v2.ExternalMetricStatus"],
  ],
  "autoscaling.v2.ObjectMetricStatus": [
    [1, "metric", "autoscaling.v2.MetricIdentifier"],
    [2, "current", "autoscaling.v2.MetricValueStatus"],
    [3, "describedObject", "autoscaling.v2.CrossVersionObjectReference"],
  ],
  "autoscaling.v2.PodsMetricStatus": [
    [1, "metric", "autoscaling.v2.MetricIdentifier"],
    [2, "current", "autoscaling.v2.MetricValueStatus"],
  ],
  "autoscaling.v2.ResourceMetricStatus": [
    [1, "name", "string", KEEP_ZERO],
    [2, "current", "autoscaling.v2.MetricValueStatus"],
  ],
  "autoscaling.v2.ContainerResourceMetricStatus": [
    [1, "name", "string", KEEP_ZERO],
    [2, "current", "autoscaling.v2.MetricValueStatus"],
    [3, "container", "string", KEEP_ZERO],
  ],
  "autoscaling.v2.ExternalMetricStatus": [
    [1, "metric", "autoscaling.v2.MetricIdentifier"],
    [2, "current", "autoscaling.v2.MetricValueStatus"],
  ],
  "autoscaling.v2.MetricValueStatus": [
    [1, "value", "resource.Quantity"],
    [2, "averageValue", "resource.Quantity"],
    [3, "averageUtilization", "int32", KEEP_ZERO],
  ],
  "autoscaling.v2.HorizontalPodAutoscalerCondition": [
    [1, "type", "string", KEEP_ZERO],
    [2, "status", "string", KEEP_ZERO],
    [3, "lastTransitionTime", "meta.v1.Time"],
    [4, "reason", "string"],
    [5, "message", "string"],
  ],
};
