/**
 * The schema declaration of apiregistration.k8s.io/v1 (APIService): required fields, merge
 * markers and descriptions as Kubernetes 1.32's OpenAPI has them. Field names and types come
 * from the apiregistration/v1 descriptors.
 *
 * @module
 */
import { type GroupSchema, mergeList } from "../../schema/group_schema.ts";

/** apiregistration.k8s.io/v1. */
export const apiregistrationV1Schema: GroupSchema = {
  package: "apiregistration.v1",
  group: "apiregistration.k8s.io",
  version: "v1",
  openApiPrefix: "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1",
  kinds: ["APIService", "APIServiceList"],
  types: {
    APIService: {
      description:
        'APIService represents a server for a particular GroupVersion. Name must be "version.group".',
    },
    APIServiceList: { required: ["items"] },
    APIServiceSpec: {
      required: ["groupPriorityMinimum", "versionPriority"],
      fields: {
        service: {
          description:
            "The service of the API server; none means the group version is served locally.",
        },
        group: { description: "The API group name this server hosts." },
        version: { description: 'The API version this server hosts, for example "v1".' },
        insecureSkipTLSVerify: {
          description: "Disables TLS certificate verification with this server (discouraged).",
        },
        caBundle: {
          description: "PEM CA bundle that verifies the API server's serving certificate.",
        },
        groupPriorityMinimum: {
          description: "The least priority of the group; higher first (1 to 20000).",
        },
        versionPriority: {
          description: "The order of this version in its group; higher first (1 to 1000).",
        },
      },
    },
    APIServiceStatus: { fields: { conditions: mergeList("type") } },
    APIServiceCondition: { required: ["type", "status"] },
    ServiceReference: {
      fields: {
        namespace: { description: "The namespace of the service." },
        name: { description: "The name of the service." },
        port: { description: "The port of the service (default 443)." },
      },
    },
  },
};
