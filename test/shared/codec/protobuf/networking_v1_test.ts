import { networkingV1Messages } from "../../../../shared/codec/protobuf/schema/networking_v1.ts";
import { groupTableChecks } from "./_group_table_checks.ts";

groupTableChecks({
  messagesName: "networkingV1Messages",
  messages: networkingV1Messages,
  gv: "networking.k8s.io/v1",
  // [message, json, number, keepZero], read from networking/v1 generated.proto and types.go (v0.32).
  fields: [
    ["networking.v1.IngressSpec", "ingressClassName", 4, true],
    ["networking.v1.IngressBackend", "service", 4, false],
    ["networking.v1.IngressBackend", "resource", 3, false],
    ["networking.v1.HTTPIngressPath", "pathType", 3, true],
    ["networking.v1.IngressLoadBalancerIngress", "ports", 4, false],
    ["networking.v1.ServiceBackendPort", "number", 2, false],
    ["networking.v1.NetworkPolicyPort", "endPort", 3, true],
    ["networking.v1.NetworkPolicySpec", "policyTypes", 4, false],
    ["networking.v1.IngressClassParametersReference", "namespace", 5, true],
  ],
  kinds: [
    "Ingress",
    "IngressList",
    "IngressClass",
    "IngressClassList",
    "NetworkPolicy",
    "NetworkPolicyList",
    "Status",
    "DeleteOptions",
  ],
  fixture: "networking_v1.json",
  // Expected: kubectl's own JSON of the same object (`--dry-run=client -o json`).
  kubectl: [
    [
      "create ingress site --class=nginx --rule=foo.com/bar*=svc:8080,tls=cert",
      "create_ingress.bin",
      {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": { "name": "site", "creationTimestamp": null },
        "spec": {
          "ingressClassName": "nginx",
          "tls": [{ "hosts": ["foo.com"], "secretName": "cert" }],
          "rules": [{
            "host": "foo.com",
            "http": {
              "paths": [{
                "path": "/bar",
                "pathType": "Prefix",
                "backend": { "service": { "name": "svc", "port": { "number": 8080 } } },
              }],
            },
          }],
        },
        "status": { "loadBalancer": {} },
      },
    ],
  ],
});
