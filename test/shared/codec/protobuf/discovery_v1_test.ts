import { discoveryV1Messages } from "../../../../shared/codec/protobuf/schema/discovery_v1.ts";
import { groupTableChecks } from "./_group_table_checks.ts";

groupTableChecks({
  messagesName: "discoveryV1Messages",
  messages: discoveryV1Messages,
  gv: "discovery.k8s.io/v1",
  // [message, json, number, keepZero], read from discovery/v1 generated.proto and types.go (v0.32).
  fields: [
    ["discovery.v1.EndpointSlice", "addressType", 4, true],
    ["discovery.v1.EndpointSlice", "ports", 3, false],
    ["discovery.v1.Endpoint", "nodeName", 6, true],
    ["discovery.v1.Endpoint", "hints", 8, false],
    ["discovery.v1.Endpoint", "deprecatedTopology", 5, false],
    ["discovery.v1.EndpointConditions", "terminating", 3, true],
    ["discovery.v1.EndpointPort", "appProtocol", 4, true],
  ],
  kinds: [
    "EndpointSlice",
    "EndpointSliceList",
    "Status",
    "DeleteOptions",
  ],
  fixture: "discovery_v1.json",
});
