/**
 * The schema declaration of autoscaling/v2 (HorizontalPodAutoscaler, the stored version):
 * required fields and merge markers as Kubernetes 1.32's OpenAPI has them. Field names and
 * types come from the autoscaling/v2 descriptors.
 *
 * @module
 */
import { ATOMIC_LIST, type GroupSchema, mergeList } from "../../schema/group_schema.ts";

/** autoscaling/v2. */
export const autoscalingV2Schema: GroupSchema = {
  package: "autoscaling.v2",
  group: "autoscaling",
  version: "v2",
  openApiPrefix: "io.k8s.api.autoscaling.v2",
  kinds: ["HorizontalPodAutoscaler", "HorizontalPodAutoscalerList"],
  types: {
    HorizontalPodAutoscaler: {
      description:
        "HorizontalPodAutoscaler is the configuration for a horizontal pod autoscaler, which automatically manages the replica count of any resource implementing the scale subresource based on the metrics specified.",
    },
    HorizontalPodAutoscalerList: { required: ["items"] },
    HorizontalPodAutoscalerSpec: {
      required: ["scaleTargetRef", "maxReplicas"],
      fields: {
        metrics: ATOMIC_LIST,
        minReplicas: { description: "The lower limit for the number of replicas; default 1." },
        maxReplicas: { description: "The upper limit for the number of replicas." },
      },
    },
    CrossVersionObjectReference: { required: ["kind", "name"] },
    HPAScalingRules: { fields: { policies: ATOMIC_LIST } },
    HPAScalingPolicy: { required: ["type", "value", "periodSeconds"] },
    MetricSpec: { required: ["type"] },
    MetricTarget: { required: ["type"] },
    MetricIdentifier: { required: ["name"] },
    ObjectMetricSource: { required: ["describedObject", "target", "metric"] },
    PodsMetricSource: { required: ["metric", "target"] },
    ResourceMetricSource: { required: ["name", "target"] },
    ContainerResourceMetricSource: { required: ["name", "target", "container"] },
    ExternalMetricSource: { required: ["metric", "target"] },
    HorizontalPodAutoscalerStatus: {
      required: ["desiredReplicas"],
      fields: { currentMetrics: ATOMIC_LIST, conditions: mergeList("type") },
    },
    HorizontalPodAutoscalerCondition: { required: ["type", "status"] },
    MetricStatus: { required: ["type"] },
    ObjectMetricStatus: { required: ["metric", "current", "describedObject"] },
    PodsMetricStatus: { required: ["metric", "current"] },
    ResourceMetricStatus: { required: ["name", "current"] },
    ContainerResourceMetricStatus: { required: ["name", "current", "container"] },
    ExternalMetricStatus: { required: ["metric", "current"] },
  },
};
