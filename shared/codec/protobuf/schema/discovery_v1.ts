/**
 * Message descriptors of discovery.k8s.io/v1 (k8s.io/api/discovery/v1), Kubernetes 1.32.
 *
 * Field numbers, wire types and JSON names are the facts of the upstream API types; the table format
 * is ours (see {@link MessageTable}).
 *
 * @module
 */
import type { MessageTable } from "../message_descriptor.ts";

/** Messages of discovery.k8s.io/v1 (k8s.io/api/discovery/v1). */
export const discoveryV1Messages: MessageTable = {
  "discovery.v1.Endpoint": [
    [1, "addresses", "[]string"],
    [2, "conditions", "discovery.v1.EndpointConditions"],
    [3, "hostname", "string", 1],
    [4, "targetRef", "core.v1.ObjectReference"],
    [5, "deprecatedTopology", "map:string"],
    [6, "nodeName", "string", 1],
    [7, "zone", "string", 1],
    [8, "hints", "discovery.v1.EndpointHints"],
  ],
  "discovery.v1.EndpointConditions": [
    [1, "ready", "bool", 1],
    [2, "serving", "bool", 1],
    [3, "terminating", "bool", 1],
  ],
  "discovery.v1.EndpointHints": [
    [1, "forZones", "[]discovery.v1.ForZone"],
  ],
  "discovery.v1.EndpointPort": [
    [1, "name", "string", 1],
    [2, "protocol", "string", 1],
    [3, "port", "int32", 1],
    [4, "appProtocol", "string", 1],
  ],
  "discovery.v1.EndpointSlice": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [4, "addressType", "string", 1],
    [2, "endpoints", "[]discovery.v1.Endpoint"],
    [3, "ports", "[]discovery.v1.EndpointPort"],
  ],
  "discovery.v1.EndpointSliceList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]discovery.v1.EndpointSlice"],
  ],
  "discovery.v1.ForZone": [
    [1, "name", "string", 1],
  ],
};
