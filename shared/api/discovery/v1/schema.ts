/**
 * The schema declaration of discovery.k8s.io/v1 (EndpointSlice): required fields, enums and list
 * types as Kubernetes 1.32's OpenAPI has them. Field names and types come from the
 * discovery/v1 descriptors.
 *
 * `endpoints` and an endpoint's `addresses` are left to the kind's validation, which reports
 * them as kube-apiserver does.
 *
 * @module
 */
import { ATOMIC_LIST, type GroupSchema } from "../../schema/group_schema.ts";

/** discovery.k8s.io/v1. */
export const discoveryV1Schema: GroupSchema = {
  package: "discovery.v1",
  group: "discovery.k8s.io",
  version: "v1",
  openApiPrefix: "io.k8s.api.discovery.v1",
  kinds: ["EndpointSlice", "EndpointSliceList"],
  types: {
    EndpointSlice: {
      description: "EndpointSlice represents a subset of the endpoints that implement a service.",
      required: ["addressType"],
      // A slice without endpoints is valid to Kubernetes' validation.
      documentedRequired: ["endpoints"],
      fields: {
        addressType: {
          enum: ["FQDN", "IPv4", "IPv6"],
          description: "The type of address carried by this slice; immutable.",
        },
        endpoints: ATOMIC_LIST,
        ports: ATOMIC_LIST,
      },
    },
    EndpointSliceList: { required: ["items"] },
    Endpoint: { documentedRequired: ["addresses"], fields: { addresses: { listType: "set" } } },
    EndpointPort: { fields: { protocol: { enum: ["SCTP", "TCP", "UDP"] } } },
    EndpointHints: { fields: { forZones: ATOMIC_LIST } },
  },
};
