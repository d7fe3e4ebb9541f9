/**
 * The schema declaration of autoscaling/v1: Scale (the `scale` subresource's kind) and
 * HorizontalPodAutoscaler (served from autoscaling/v2).
 */
import type { GroupSchema } from "../../schema/group_schema.ts";

/** autoscaling/v1. */
export const autoscalingV1Schema: GroupSchema = {
  package: "autoscaling.v1",
  group: "autoscaling",
  version: "v1",
  openApiPrefix: "io.k8s.api.autoscaling.v1",
  kinds: ["Scale", "HorizontalPodAutoscaler", "HorizontalPodAutoscalerList"],
  types: {
    Scale: { description: "Scale represents a scaling request for a resource." },
    ScaleSpec: { fields: { replicas: { description: "The desired number of instances." } } },
    ScaleStatus: {
      required: ["replicas"],
      fields: {
        replicas: { description: "The actual number of observed instances." },
        selector: { description: "Label query over the pods, in the string form of selectors." },
      },
    },
    HorizontalPodAutoscaler: {
      description: "configuration of a horizontal pod autoscaler.",
    },
    HorizontalPodAutoscalerList: { required: ["items"] },
    HorizontalPodAutoscalerSpec: {
      required: ["scaleTargetRef", "maxReplicas"],
      fields: {
        targetCPUUtilizationPercentage: {
          description:
            "The target average CPU utilization over all the pods, as a percentage of the requested CPU; default 80%.",
        },
      },
    },
    CrossVersionObjectReference: { required: ["kind", "name"] },
    HorizontalPodAutoscalerStatus: { required: ["currentReplicas", "desiredReplicas"] },
  },
};
