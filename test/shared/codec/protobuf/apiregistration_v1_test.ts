import { apiregistrationV1Messages } from "../../../../shared/codec/protobuf/schema/apiregistration_v1.ts";
import { groupTableChecks } from "./_group_table_checks.ts";

groupTableChecks({
  messagesName: "apiregistrationV1Messages",
  messages: apiregistrationV1Messages,
  gv: "apiregistration.k8s.io/v1",
  // [message, json, number, keepZero], read from kube-aggregator's apiregistration/v1
  // generated.proto and types.go (1.32).
  fields: [
    ["apiregistration.v1.APIServiceSpec", "service", 1, false],
    ["apiregistration.v1.APIServiceSpec", "caBundle", 5, false],
    ["apiregistration.v1.APIServiceSpec", "groupPriorityMinimum", 7, true],
    ["apiregistration.v1.APIServiceSpec", "versionPriority", 8, true],
    ["apiregistration.v1.ServiceReference", "port", 3, true],
    ["apiregistration.v1.APIServiceCondition", "reason", 4, false],
  ],
  kinds: ["APIService", "APIServiceList", "Status", "DeleteOptions"],
  fixture: "apiregistration_v1.json",
});
