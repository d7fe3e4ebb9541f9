/**
 * The quota evaluators, with cases transcribed from kube's pkg/quota/v1/evaluator/core tests
 * (pods_test.go, services_test.go, persistent_volume_claims_test.go).
 */
import assert from "node:assert/strict";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import {
  claimEvaluator,
  EvaluatorRegistry,
  podEvaluator,
  serviceEvaluator,
} from "../../../../apiserver/admission/resource_quota/evaluators.ts";
import { podMatchesScope } from "../../../../apiserver/admission/resource_quota/pod_usage.ts";
import { toJson } from "../../../../apiserver/admission/resource_quota/resource_list.ts";

const pod = (spec: Record<string, unknown>, extra: Partial<KubeObject> = {}): KubeObject => ({
  metadata: { name: "p", ...(extra.metadata ?? {}) },
  spec,
  ...(extra.status ? { status: extra.status } : {}),
});
const res = (requests?: Record<string, string>, limits?: Record<string, string>) => ({
  name: "c",
  resources: { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) },
});
const usage = (o: KubeObject, now = Date.now()) => toJson(podEvaluator().usage(o, now));

Deno.test("podEvaluator().constraints() names the missing resources per container", () => {
  const e = podEvaluator();
  const withCpu = (name: string) => ({
    name,
    resources: { requests: { cpu: "1m" }, limits: { cpu: "2m" } },
  });
  assert.equal(
    e.constraints(["memory"], pod({ initContainers: [withCpu("dummy")] })),
    "must specify memory for: dummy",
  );
  assert.equal(
    e.constraints(["memory"], pod({ containers: [withCpu("foo"), withCpu("bar")] })),
    "must specify memory for: bar,foo",
  );
  assert.equal(
    e.constraints(["memory", "cpu"], pod({ containers: [{ name: "foo" }, { name: "bar" }] })),
    "must specify cpu for: bar,foo; memory for: bar,foo",
  );
  assert.equal(
    e.constraints(["pods", "requests.storage"], pod({ containers: [{ name: "a" }] })),
    undefined,
  );
});

Deno.test("podEvaluator().usage() counts requests, limits, hugepages and extended resources", () => {
  assert.deepEqual(usage(pod({ initContainers: [res({ cpu: "1m" }, { cpu: "2m" })] })), {
    "count/pods": "1",
    cpu: "1m",
    "limits.cpu": "2m",
    pods: "1",
    "requests.cpu": "1m",
  });
  assert.deepEqual(
    usage(
      pod({ containers: [res({ "ephemeral-storage": "32Mi" }, { "ephemeral-storage": "64Mi" })] }),
    ),
    {
      "count/pods": "1",
      "ephemeral-storage": "32Mi",
      "limits.ephemeral-storage": "64Mi",
      pods: "1",
      "requests.ephemeral-storage": "32Mi",
    },
  );
  assert.deepEqual(usage(pod({ containers: [res({ "hugepages-2Mi": "100Mi" })] })), {
    "count/pods": "1",
    "hugepages-2Mi": "100Mi",
    pods: "1",
    "requests.hugepages-2Mi": "100Mi",
  });
  assert.deepEqual(
    usage(pod({ containers: [res({ "example.com/dongle": "3" }, { "example.com/dongle": "3" })] })),
    {
      "count/pods": "1",
      pods: "1",
      "requests.example.com/dongle": "3",
    },
  );
});

Deno.test("podEvaluator().usage(): init containers' peak, overhead, terminal and deleted pods", () => {
  const big = res({ cpu: "4", memory: "100M", "example.com/dongle": "4" }, {
    cpu: "8",
    memory: "200M",
    "example.com/dongle": "4",
  });
  const small = res({ cpu: "1", memory: "50M", "example.com/dongle": "2" }, {
    cpu: "2",
    memory: "100M",
    "example.com/dongle": "2",
  });
  const c1 = res({ cpu: "1", memory: "50M", "example.com/dongle": "1" }, {
    cpu: "2",
    memory: "100M",
    "example.com/dongle": "1",
  });
  const c2 = res({ cpu: "2", memory: "25M", "example.com/dongle": "2" }, {
    cpu: "5",
    memory: "50M",
    "example.com/dongle": "2",
  });
  assert.deepEqual(usage(pod({ initContainers: [big, small], containers: [c1, c2] })), {
    "count/pods": "1",
    cpu: "4",
    "limits.cpu": "8",
    "limits.memory": "200M",
    memory: "100M",
    pods: "1",
    "requests.cpu": "4",
    "requests.example.com/dongle": "4",
    "requests.memory": "100M",
  });
  assert.deepEqual(
    usage(pod({ overhead: { cpu: "1" }, containers: [res({ cpu: "1" }, { cpu: "2" })] })),
    {
      "count/pods": "1",
      cpu: "2",
      "limits.cpu": "3",
      pods: "1",
      "requests.cpu": "2",
    },
  );
  const done = pod({ containers: [res({ "example.com/dongle": "3" })] }, {
    status: { phase: "Succeeded" },
  });
  assert.deepEqual(usage(done), { "count/pods": "1" });
  const now = Date.now();
  const deleting = (ago: number) =>
    pod({ containers: [res({ cpu: "1" }, { cpu: "2" })] }, {
      metadata: {
        deletionTimestamp: new Date(now - ago).toISOString(),
        deletionGracePeriodSeconds: 30,
      },
    });
  assert.deepEqual(usage(deleting(60_000), now), { "count/pods": "1" });
  assert.equal(usage(deleting(0), now)["requests.cpu"], "1");
});

Deno.test("podMatchesScope() for each scope and priority class selector", () => {
  const empty = pod({});
  const scope = (scopeName: string, operator = "Exists", values?: string[]) => ({
    scopeName,
    operator,
    values,
  });
  assert.equal(podMatchesScope(scope("NotTerminating"), empty), true);
  assert.equal(podMatchesScope(scope("BestEffort"), empty), true);
  assert.equal(podMatchesScope(scope("Terminating"), pod({ activeDeadlineSeconds: 30 })), true);
  const burstable = pod({
    containers: [res({ cpu: "1", memory: "50M" }, { cpu: "2", memory: "100M" })],
  });
  assert.equal(podMatchesScope(scope("NotBestEffort"), burstable), true);
  const high = pod({ priorityClassName: "high-priority" });
  assert.equal(podMatchesScope(scope("PriorityClass", "In", ["high-priority"]), high), true);
  assert.equal(
    podMatchesScope(
      scope("PriorityClass", "In", ["high-priority"]),
      pod({ priorityClassName: "low" }),
    ),
    false,
  );
  assert.equal(podMatchesScope(scope("PriorityClass", "NotIn", ["high-priority"]), empty), true);
  assert.equal(podMatchesScope(scope("PriorityClass"), empty), false);
  const affinity = {
    podAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: [{ namespaces: ["ns1"], topologyKey: "k" }],
    },
  };
  assert.equal(podMatchesScope(scope("CrossNamespacePodAffinity"), pod({ affinity })), true);
  assert.equal(podMatchesScope(scope("CrossNamespacePodAffinity"), empty), false);
});

Deno.test("serviceEvaluator() and claimEvaluator() usage", () => {
  const svc = (spec: Record<string, unknown>) =>
    toJson(serviceEvaluator().usage({ metadata: {}, spec }, 0));
  const ports = [{ port: 27443 }, { port: 27444 }];
  assert.deepEqual(svc({ type: "ClusterIP" }), {
    "count/services": "1",
    services: "1",
    "services.loadbalancers": "0",
    "services.nodeports": "0",
  });
  assert.deepEqual(svc({ type: "NodePort", ports: [{ port: 27443 }] })["services.nodeports"], "1");
  assert.deepEqual(svc({ type: "LoadBalancer", ports }), {
    "count/services": "1",
    services: "1",
    "services.loadbalancers": "1",
    "services.nodeports": "2",
  });
  const explicit = svc({
    type: "LoadBalancer",
    allocateLoadBalancerNodePorts: false,
    ports: [{ port: 1, nodePort: 32001 }, { port: 2 }],
  });
  assert.equal(explicit["services.nodeports"], "1");
  const claim = (spec: Record<string, unknown>, status?: Record<string, unknown>) =>
    toJson(claimEvaluator().usage({ metadata: {}, spec, ...(status ? { status } : {}) }, 0));
  assert.deepEqual(
    claim({ storageClassName: "gold", resources: { requests: { storage: "10Gi" } } }),
    {
      "count/persistentvolumeclaims": "1",
      "gold.storageclass.storage.k8s.io/persistentvolumeclaims": "1",
      "gold.storageclass.storage.k8s.io/requests.storage": "10Gi",
      persistentvolumeclaims: "1",
      "requests.storage": "10Gi",
    },
  );
  assert.equal(claim({ resources: { requests: { storage: "1m" } } })["requests.storage"], "1");
  assert.equal(
    claim({ resources: { requests: { storage: "10Gi" } } }, {
      allocatedResources: { storage: "20Gi" },
    })["requests.storage"],
    "20Gi",
  );
});

Deno.test("EvaluatorRegistry gives object count evaluators with kube's names and legacy aliases", () => {
  const r = new EvaluatorRegistry();
  const deployments = r.get("apps", "deployments");
  assert.deepEqual(deployments.matchingResources(["count/deployments.apps", "pods"]), [
    "count/deployments.apps",
  ]);
  assert.equal(deployments.handles({ operation: "UPDATE", subresource: "" }), false);
  assert.deepEqual(toJson(r.get("", "secrets").usage({ metadata: {} }, 0)), {
    "count/secrets": "1",
    secrets: "1",
  });
  assert.deepEqual(r.get("", "configmaps").matchingResources(["configmaps"]), ["configmaps"]);
  assert.deepEqual(
    podEvaluator().matchingResources([
      "pods",
      "requests.nvidia.com/gpu",
      "services",
      "hugepages-1Gi",
    ]),
    [
      "pods",
      "requests.nvidia.com/gpu",
      "hugepages-1Gi",
    ],
  );
});
