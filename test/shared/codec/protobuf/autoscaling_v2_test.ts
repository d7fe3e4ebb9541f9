import { autoscalingV2Messages } from "../../../../shared/codec/protobuf/schema/autoscaling_v2.ts";
import { groupTableChecks } from "./_group_table_checks.ts";

groupTableChecks({
  messagesName: "autoscalingV2Messages",
  messages: autoscalingV2Messages,
  gv: "autoscaling/v2",
  // [message, json, number, keepZero], read from autoscaling/v2 generated.proto and types.go
  // (v0.32); autoscaling/v1's HorizontalPodAutoscaler rides along.
  fields: [
    ["autoscaling.v2.HorizontalPodAutoscalerSpec", "minReplicas", 2, true],
    ["autoscaling.v2.HorizontalPodAutoscalerSpec", "metrics", 4, false],
    ["autoscaling.v2.HorizontalPodAutoscalerSpec", "behavior", 5, false],
    ["autoscaling.v2.HPAScalingRules", "stabilizationWindowSeconds", 3, true],
    ["autoscaling.v2.HPAScalingRules", "selectPolicy", 1, true],
    ["autoscaling.v2.MetricSpec", "containerResource", 7, false],
    ["autoscaling.v2.MetricTarget", "averageUtilization", 4, true],
    ["autoscaling.v2.HorizontalPodAutoscalerStatus", "currentReplicas", 3, false],
    ["autoscaling.v2.HorizontalPodAutoscalerStatus", "desiredReplicas", 4, true],
    ["autoscaling.v2.ObjectMetricStatus", "describedObject", 3, false],
    ["autoscaling.v1.HorizontalPodAutoscalerSpec", "targetCPUUtilizationPercentage", 4, true],
    ["autoscaling.v1.HorizontalPodAutoscalerStatus", "currentCPUUtilizationPercentage", 5, true],
  ],
  kinds: ["HorizontalPodAutoscaler", "HorizontalPodAutoscalerList", "Status", "DeleteOptions"],
  fixture: "autoscaling_v2.json",
});
