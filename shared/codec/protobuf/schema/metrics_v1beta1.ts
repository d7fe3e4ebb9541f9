/**
 * Message descriptors of metrics.k8s.io/v1beta1 (k8s.io/metrics/pkg/apis/metrics/v1beta1),
 * Kubernetes 1.32.
 *
 * Field numbers, wire types and JSON names are the facts of the upstream API types; the table format
 * is ours (see {@link MessageTable}).
 *
 * @module
 */
import type { MessageTable } from "../message_descriptor.ts";

/** Messages of metrics.k8s.io/v1beta1. */
export const metricsV1beta1Messages: MessageTable = {
  "metrics.v1beta1.ContainerMetrics": [
    [1, "name", "string"],
    [2, "usage", "map:resource.Quantity"],
  ],
  "metrics.v1beta1.NodeMetrics": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "timestamp", "meta.v1.Time"],
    [3, "window", "meta.v1.Duration"],
    [4, "usage", "map:resource.Quantity"],
  ],
  "metrics.v1beta1.NodeMetricsList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]metrics.v1beta1.NodeMetrics"],
  ],
  "metrics.v1beta1.PodMetrics": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "timestamp", "meta.v1.Time"],
    [3, "window", "meta.v1.Duration"],
    [4, "containers", "[]metrics.v1beta1.ContainerMetrics"],
  ],
  "metrics.v1beta1.PodMetricsList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]metrics.v1beta1.PodMetrics"],
  ],
};
