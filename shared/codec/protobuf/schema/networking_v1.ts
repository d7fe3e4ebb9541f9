/**
 * Message descriptors of networking.k8s.io/v1 (k8s.io/api/networking/v1), Kubernetes 1.32.
 *
 * Field numbers, wire types and JSON names are the facts of the upstream API types; the table format
 * is ours (see {@link MessageTable}).
 *
 * @module
 */
import type { MessageTable } from "../message_descriptor.ts";

/** Messages of networking.k8s.io/v1 (k8s.io/api/networking/v1). */
export const networkingV1Messages: MessageTable = {
  "networking.v1.HTTPIngressPath": [
    [1, "path", "string"],
    [3, "pathType", "string", 1],
    [2, "backend", "networking.v1.IngressBackend"],
  ],
  "networking.v1.HTTPIngressRuleValue": [
    [1, "paths", "[]networking.v1.HTTPIngressPath"],
  ],
  "networking.v1.IPBlock": [
    [1, "cidr", "string", 1],
    [2, "except", "[]string"],
  ],
  "networking.v1.Ingress": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "spec", "networking.v1.IngressSpec"],
    [3, "status", "networking.v1.IngressStatus"],
  ],
  "networking.v1.IngressBackend": [
    [4, "service", "networking.v1.IngressServiceBackend"],
    [3, "resource", "core.v1.TypedLocalObjectReference"],
  ],
  "networking.v1.IngressClass": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "spec", "networking.v1.IngressClassSpec"],
  ],
  "networking.v1.IngressClassList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]networking.v1.IngressClass"],
  ],
  "networking.v1.IngressClassParametersReference": [
    [1, "apiGroup", "string", 1],
    [2, "kind", "string", 1],
    [3, "name", "string", 1],
    [4, "scope", "string", 1],
    [5, "namespace", "string", 1],
  ],
  "networking.v1.IngressClassSpec": [
    [1, "controller", "string"],
    [2, "parameters", "networking.v1.IngressClassParametersReference"],
  ],
  "networking.v1.IngressList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]networking.v1.Ingress"],
  ],
  "networking.v1.IngressLoadBalancerIngress": [
    [1, "ip", "string"],
    [2, "hostname", "string"],
    [4, "ports", "[]networking.v1.IngressPortStatus"],
  ],
  "networking.v1.IngressLoadBalancerStatus": [
    [1, "ingress", "[]networking.v1.IngressLoadBalancerIngress"],
  ],
  "networking.v1.IngressPortStatus": [
    [1, "port", "int32", 1],
    [2, "protocol", "string", 1],
    [3, "error", "string", 1],
  ],
  "networking.v1.IngressRule": [
    [1, "host", "string"],
    [2, "ingressRuleValue", "networking.v1.IngressRuleValue", 2],
  ],
  "networking.v1.IngressRuleValue": [
    [1, "http", "networking.v1.HTTPIngressRuleValue"],
  ],
  "networking.v1.IngressServiceBackend": [
    [1, "name", "string", 1],
    [2, "port", "networking.v1.ServiceBackendPort"],
  ],
  "networking.v1.IngressSpec": [
    [4, "ingressClassName", "string", 1],
    [1, "defaultBackend", "networking.v1.IngressBackend"],
    [2, "tls", "[]networking.v1.IngressTLS"],
    [3, "rules", "[]networking.v1.IngressRule"],
  ],
  "networking.v1.IngressStatus": [
    [1, "loadBalancer", "networking.v1.IngressLoadBalancerStatus"],
  ],
  "networking.v1.IngressTLS": [
    [1, "hosts", "[]string"],
    [2, "secretName", "string"],
  ],
  "networking.v1.NetworkPolicy": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "spec", "networking.v1.NetworkPolicySpec"],
  ],
  "networking.v1.NetworkPolicyEgressRule": [
    [1, "ports", "[]networking.v1.NetworkPolicyPort"],
    [2, "to", "[]networking.v1.NetworkPolicyPeer"],
  ],
  "networking.v1.NetworkPolicyIngressRule": [
    [1, "ports", "[]networking.v1.NetworkPolicyPort"],
    [2, "from", "[]networking.v1.NetworkPolicyPeer"],
  ],
  "networking.v1.NetworkPolicyList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]networking.v1.NetworkPolicy"],
  ],
  "networking.v1.NetworkPolicyPeer": [
    [1, "podSelector", "meta.v1.LabelSelector"],
    [2, "namespaceSelector", "meta.v1.LabelSelector"],
    [3, "ipBlock", "networking.v1.IPBlock"],
  ],
  "networking.v1.NetworkPolicyPort": [
    [1, "protocol", "string", 1],
    [2, "port", "intstr.IntOrString"],
    [3, "endPort", "int32", 1],
  ],
  "networking.v1.NetworkPolicySpec": [
    [1, "podSelector", "meta.v1.LabelSelector"],
    [2, "ingress", "[]networking.v1.NetworkPolicyIngressRule"],
    [3, "egress", "[]networking.v1.NetworkPolicyEgressRule"],
    [4, "policyTypes", "[]string"],
  ],
  "networking.v1.ServiceBackendPort": [
    [1, "name", "string"],
    [2, "number", "int32"],
  ],
};
