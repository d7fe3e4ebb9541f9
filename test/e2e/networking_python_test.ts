/**
 * End-to-end with Debian's python3-kubernetes client against networking.k8s.io/v1 and
 * discovery.k8s.io/v1: the typed models round-trip an Ingress (with the default class), a
 * NetworkPolicy (with its defaults), IngressClasses and EndpointSlices. Skips where
 * /usr/bin/python3 cannot import kubernetes.
 */
import assert from "node:assert/strict";
import { startTestServer } from "../support/test_server.ts";

const PYTHON = "/usr/bin/python3";

function hasPythonClient(): boolean {
  try {
    return new Deno.Command(PYTHON, {
      args: ["-c", "import kubernetes"],
      stdout: "null",
      stderr: "null",
    }).outputSync().success;
  } catch {
    return false;
  }
}

const AVAILABLE = hasPythonClient();
if (!AVAILABLE) {
  console.warn(`${PYTHON} cannot import kubernetes: skipping the Python networking test`);
}

const SCRIPT = `
import json, sys
from kubernetes import client, config
config.load_kube_config(config_file=sys.argv[1])
net = client.NetworkingV1Api()
disc = client.DiscoveryV1Api()
out = {}
net.create_ingress_class(client.V1IngressClass(
    metadata=client.V1ObjectMeta(name="py", annotations={"ingressclass.kubernetes.io/is-default-class": "true"}),
    spec=client.V1IngressClassSpec(controller="example.com/py")))
backend = client.V1IngressBackend(service=client.V1IngressServiceBackend(
    name="svc", port=client.V1ServiceBackendPort(number=80)))
ing = client.V1Ingress(metadata=client.V1ObjectMeta(name="py-ing"), spec=client.V1IngressSpec(
    rules=[client.V1IngressRule(host="py.example.com", http=client.V1HTTPIngressRuleValue(
        paths=[client.V1HTTPIngressPath(path="/", path_type="Prefix", backend=backend)]))]))
created = net.create_namespaced_ingress("default", ing)
out["class"] = created.spec.ingress_class_name
out["hosts"] = [r.host for r in net.list_namespaced_ingress("default").items[0].spec.rules]
pol = net.create_namespaced_network_policy("default", client.V1NetworkPolicy(
    metadata=client.V1ObjectMeta(name="py-pol"),
    spec=client.V1NetworkPolicySpec(pod_selector=client.V1LabelSelector(match_labels={"a": "b"}),
        egress=[client.V1NetworkPolicyEgressRule(ports=[client.V1NetworkPolicyPort(port=53)])])))
out["policy_types"] = pol.spec.policy_types
out["egress_protocol"] = pol.spec.egress[0].ports[0].protocol
disc.create_namespaced_endpoint_slice("default", client.V1EndpointSlice(
    metadata=client.V1ObjectMeta(name="py-slice", labels={"kubernetes.io/service-name": "svc"}),
    address_type="IPv4", endpoints=[client.V1Endpoint(addresses=["10.3.0.1"])],
    ports=[client.DiscoveryV1EndpointPort(port=80)]))
s = disc.read_namespaced_endpoint_slice("py-slice", "default")
out["slice"] = [s.address_type, s.endpoints[0].addresses, s.ports[0].protocol, s.ports[0].name]
print(json.dumps(out))
`;

Deno.test({
  name: "python3-kubernetes round-trips Ingresses, NetworkPolicies and EndpointSlices",
  ignore: !AVAILABLE,
  async fn() {
    const s = await startTestServer();
    const home = await Deno.makeTempDir({ prefix: "python-home-" });
    try {
      const out = await new Deno.Command(PYTHON, {
        args: ["-c", SCRIPT, s.server.kubeconfigPath],
        env: { HOME: home, PATH: "/usr/bin:/bin" },
        clearEnv: true,
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
      const result = JSON.parse(new TextDecoder().decode(out.stdout));
      assert.deepEqual(result, {
        class: "py",
        hosts: ["py.example.com"],
        policy_types: ["Ingress", "Egress"],
        egress_protocol: "TCP",
        slice: ["IPv4", ["10.3.0.1"], "TCP", ""],
      });
    } finally {
      await s.close();
      await Deno.remove(home, { recursive: true }).catch(() => {});
    }
  },
});
