import { flowcontrolV1Messages } from "../../../../shared/codec/protobuf/schema/flowcontrol_v1.ts";
import { groupTableChecks } from "./_group_table_checks.ts";

groupTableChecks({
  messagesName: "flowcontrolV1Messages",
  messages: flowcontrolV1Messages,
  gv: "flowcontrol.apiserver.k8s.io/v1",
  // [message, json, number, keepZero], read from flowcontrol/v1 generated.proto and types.go
  // (v0.32).
  fields: [
    ["flowcontrol.v1.FlowSchemaSpec", "matchingPrecedence", 2, true],
    ["flowcontrol.v1.FlowSchemaSpec", "rules", 4, false],
    ["flowcontrol.v1.FlowSchemaCondition", "type", 1, false],
    ["flowcontrol.v1.NonResourcePolicyRule", "nonResourceURLs", 6, false],
    ["flowcontrol.v1.ResourcePolicyRule", "clusterScope", 4, false],
    ["flowcontrol.v1.ResourcePolicyRule", "namespaces", 5, false],
    ["flowcontrol.v1.LimitedPriorityLevelConfiguration", "nominalConcurrencyShares", 1, true],
    ["flowcontrol.v1.LimitedPriorityLevelConfiguration", "borrowingLimitPercent", 4, true],
    ["flowcontrol.v1.ExemptPriorityLevelConfiguration", "lendablePercent", 2, true],
    ["flowcontrol.v1.QueuingConfiguration", "queueLengthLimit", 3, true],
    ["flowcontrol.v1.PriorityLevelConfigurationSpec", "exempt", 3, false],
    ["flowcontrol.v1.ServiceAccountSubject", "namespace", 1, true],
    ["flowcontrol.v1.Subject", "serviceAccount", 4, false],
  ],
  kinds: [
    "FlowSchema",
    "FlowSchemaList",
    "PriorityLevelConfiguration",
    "PriorityLevelConfigurationList",
    "Status",
    "DeleteOptions",
  ],
  fixture: "flowcontrol_v1.json",
});
