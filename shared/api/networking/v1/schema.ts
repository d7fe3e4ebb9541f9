/**
 * The schema declaration of networking.k8s.io/v1 (Ingress, IngressClass, NetworkPolicy):
 * required fields, enums and list types as Kubernetes 1.32's OpenAPI has them. Field names and
 * types come from the networking/v1 descriptors.
 *
 * Required fields whose absence kube-apiserver reports with its own message (an Ingress path's
 * `pathType` and `backend`, a NetworkPolicy's `podSelector`) are left to the kinds' validation.
 *
 * @module
 */
import { ATOMIC_LIST, type GroupSchema } from "../../schema/group_schema.ts";

const PROTOCOLS = ["SCTP", "TCP", "UDP"];

/** networking.k8s.io/v1. */
export const networkingV1Schema: GroupSchema = {
  package: "networking.v1",
  group: "networking.k8s.io",
  version: "v1",
  openApiPrefix: "io.k8s.api.networking.v1",
  kinds: [
    "Ingress",
    "IngressList",
    "IngressClass",
    "IngressClassList",
    "NetworkPolicy",
    "NetworkPolicyList",
  ],
  types: {
    Ingress: {
      description:
        "Ingress is a collection of rules that allow inbound connections to reach the endpoints defined by a backend.",
      fields: {
        spec: { description: "Spec is the desired state of the Ingress." },
        status: { description: "Status is the current state of the Ingress." },
      },
    },
    IngressList: { required: ["items"] },
    IngressSpec: {
      fields: {
        ingressClassName: {
          description: "The name of the IngressClass cluster resource; defaulted at creation.",
        },
        defaultBackend: { description: "The backend for requests that match no rule." },
        tls: ATOMIC_LIST,
        rules: ATOMIC_LIST,
      },
    },
    IngressTLS: { fields: { hosts: ATOMIC_LIST } },
    HTTPIngressRuleValue: { required: ["paths"], fields: { paths: ATOMIC_LIST } },
    HTTPIngressPath: {
      // Kubernetes' validation answers these with its own messages ("pathType must be specified").
      documentedRequired: ["pathType", "backend"],
      fields: {
        pathType: {
          enum: ["Exact", "ImplementationSpecific", "Prefix"],
          description: "How the path is matched: Exact, Prefix or ImplementationSpecific.",
        },
      },
    },
    IngressServiceBackend: { required: ["name"] },
    IngressClass: {
      description: "IngressClass names the controller that implements an Ingress class.",
    },
    IngressClassList: { required: ["items"] },
    IngressClassSpec: {
      fields: { controller: { description: "The controller responsible for this class." } },
    },
    IngressClassParametersReference: { required: ["kind", "name"] },
    IngressLoadBalancerStatus: { fields: { ingress: ATOMIC_LIST } },
    IngressLoadBalancerIngress: { fields: { ports: ATOMIC_LIST } },
    IngressPortStatus: {
      required: ["port", "protocol"],
      fields: { protocol: { enum: PROTOCOLS } },
    },
    NetworkPolicy: {
      description: "NetworkPolicy describes what network traffic is allowed for a set of Pods.",
    },
    NetworkPolicyList: { required: ["items"] },
    NetworkPolicySpec: {
      fields: {
        podSelector: { description: "The pods this policy applies to; empty selects all." },
        ingress: ATOMIC_LIST,
        egress: ATOMIC_LIST,
        policyTypes: ATOMIC_LIST,
      },
    },
    NetworkPolicyIngressRule: { fields: { ports: ATOMIC_LIST, from: ATOMIC_LIST } },
    NetworkPolicyEgressRule: { fields: { ports: ATOMIC_LIST, to: ATOMIC_LIST } },
    NetworkPolicyPort: { fields: { protocol: { enum: PROTOCOLS } } },
    IPBlock: { required: ["cidr"], fields: { except: ATOMIC_LIST } },
  },
};
