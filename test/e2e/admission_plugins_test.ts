/**
 * End-to-end: the built-in admission plugins this server runs by default, with the
 * controllers they rely on: ServiceAccount (the `default` account per namespace, the projected
 * token volume, `kube-root-ca.crt`), LimitRanger (defaults and limits; kubectl run),
 * DefaultTolerationSeconds, TaintNodesByCondition, PersistentVolumeClaimResize and
 * StorageObjectInUseProtection (finalizers released when unused); disabling plugins by flag.
 */
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import { jsonCall, jsonOk } from "../support/json_call.ts";
import { eventually } from "../support/eventually.ts";
import {
  kubectlFor,
  kubectlOk as ok,
  runKubectl as kubectl,
  skipWithoutKubectl,
} from "../support/kubectl.ts";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

async function withServer(fn: (t: TestServer) => Promise<void>, flags: string[] = []) {
  const t = await startTestServer(flags);
  try {
    await fn(t);
  } finally {
    await t.close();
  }
}

const POD = {
  containers: [{ name: "c", image: "nginx" }],
  initContainers: [{ name: "i", image: "busybox" }],
};
const MOUNT = "/var/run/secrets/kubernetes.io/serviceaccount";

Deno.test("ServiceAccount: default account, token volume in every container, kube's refusal", async () => {
  await withServer(async (t) => {
    await jsonOk(t, "POST", "/api/v1/namespaces", { metadata: { name: "sa" } });
    const sa = await eventually("the default ServiceAccount", async () => {
      const r = await jsonCall(t, "GET", "/api/v1/namespaces/sa/serviceaccounts/default");
      return r.status === 200 && r.json;
    });
    assert.equal(sa.metadata.name, "default");
    const ca = await eventually("kube-root-ca.crt", async () => {
      const r = await jsonCall(t, "GET", "/api/v1/namespaces/sa/configmaps/kube-root-ca.crt");
      return r.status === 200 && r.json;
    });
    assert.equal(ca.data["ca.crt"], t.server.caPem);
    const pod: Json = await jsonOk(t, "POST", "/api/v1/namespaces/sa/pods", {
      metadata: { name: "p" },
      spec: POD,
    });
    assert.equal(pod.spec.serviceAccountName, "default");
    const volume = pod.spec.volumes.find((v: Json) => v.name.startsWith("kube-api-access-"));
    assert.match(volume.name, /^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    assert.deepEqual(volume.projected, {
      defaultMode: 420,
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: "token" } },
        { configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] } },
        {
          downwardAPI: {
            items: [{
              path: "namespace",
              fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" },
            }],
          },
        },
      ],
    });
    for (const c of [...pod.spec.containers, ...pod.spec.initContainers]) {
      assert.deepEqual(c.volumeMounts, [{ name: volume.name, readOnly: true, mountPath: MOUNT }]);
    }
    // Automounting off on the pod: no volume.
    const off: Json = await jsonOk(t, "POST", "/api/v1/namespaces/sa/pods", {
      metadata: { name: "off" },
      spec: { ...POD, automountServiceAccountToken: false },
    });
    assert.equal(off.spec.volumes, undefined);
    const missing = await jsonCall(t, "POST", "/api/v1/namespaces/sa/pods", {
      metadata: { name: "m" },
      spec: { ...POD, serviceAccountName: "nope" },
    });
    assert.equal(missing.status, 403);
    assert.equal(
      missing.json.message,
      'pods "m" is forbidden: error looking up service account sa/nope: serviceaccount "nope" not found',
    );
    // The account's own choice, and its imagePullSecrets.
    await jsonOk(t, "POST", "/api/v1/namespaces/sa/serviceaccounts", {
      metadata: { name: "quiet" },
      automountServiceAccountToken: false,
      imagePullSecrets: [{ name: "reg" }],
    });
    const quiet: Json = await jsonOk(t, "POST", "/api/v1/namespaces/sa/pods", {
      metadata: { name: "q" },
      spec: { ...POD, serviceAccountName: "quiet" },
    });
    assert.equal(quiet.spec.volumes, undefined);
    assert.deepEqual(quiet.spec.imagePullSecrets, [{ name: "reg" }]);
    // A deleted default account comes back.
    await jsonOk(t, "DELETE", "/api/v1/namespaces/sa/serviceaccounts/default");
    await eventually("the default ServiceAccount again", async () => {
      const r = await jsonCall(t, "GET", "/api/v1/namespaces/sa/serviceaccounts/default");
      return r.status === 200;
    });
  });
});

Deno.test("ServiceAccount: mirror pods are not changed and may not reference accounts", async () => {
  await withServer(async (t) => {
    const mirror = { "kubernetes.io/config.mirror": "x" };
    const pod: Json = await jsonOk(t, "POST", "/api/v1/namespaces/default/pods", {
      metadata: { name: "mirror", annotations: mirror },
      spec: { containers: [{ name: "c", image: "nginx" }], nodeName: "n" },
    });
    assert.equal(pod.spec.serviceAccountName, undefined);
    assert.equal(pod.spec.volumes, undefined);
    const bad = await jsonCall(t, "POST", "/api/v1/namespaces/default/pods", {
      metadata: { name: "mirror2", annotations: mirror },
      spec: { containers: [{ name: "c", image: "nginx" }], serviceAccountName: "default" },
    });
    assert.equal(bad.status, 403);
    assert.equal(
      bad.json.message,
      'pods "mirror2" is forbidden: a mirror pod may not reference service accounts',
    );
  });
});

const LIMITS = {
  metadata: { name: "limits" },
  spec: {
    limits: [
      {
        type: "Container",
        default: { cpu: "500m", memory: "256Mi" },
        defaultRequest: { cpu: "100m" },
        max: { cpu: "1" },
        min: { cpu: "50m" },
      },
      { type: "PersistentVolumeClaim", max: { storage: "2Gi" }, min: { storage: "1Gi" } },
    ],
  },
};

Deno.test("LimitRanger: defaults into containers, min/max with kube's messages, claims", async () => {
  await withServer(async (t) => {
    const ns = "/api/v1/namespaces/default";
    await jsonOk(t, "POST", `${ns}/limitranges`, LIMITS);
    const pod: Json = await jsonOk(t, "POST", `${ns}/pods`, {
      metadata: { name: "p" },
      spec: {
        containers: [{ name: "c", image: "nginx", resources: { limits: { memory: "128Mi" } } }],
      },
    });
    const res = pod.spec.containers[0].resources;
    assert.deepEqual(res.limits, { memory: "128Mi", cpu: "500m" });
    // memory's request comes from the pod's own limit (pod defaulting), cpu's from the range.
    assert.equal(res.requests.cpu, "100m");
    assert.equal(
      pod.metadata.annotations["kubernetes.io/limit-ranger"],
      "LimitRanger plugin set: cpu request for container c; cpu limit for container c",
    );
    const big = await jsonCall(t, "POST", `${ns}/pods`, {
      metadata: { name: "big" },
      spec: { containers: [{ name: "c", image: "nginx", resources: { limits: { cpu: "2" } } }] },
    });
    assert.equal(big.status, 403);
    assert.equal(
      big.json.message,
      'pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2',
    );
    const small = await jsonCall(t, "POST", `${ns}/persistentvolumeclaims`, {
      metadata: { name: "small" },
      spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "500Mi" } } },
    });
    assert.equal(small.status, 403);
    assert.equal(
      small.json.message,
      'persistentvolumeclaims "small" is forbidden: minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi',
    );
  });
});

Deno.test({
  name: "LimitRanger: a LimitRange default appears in a pod made by kubectl run",
  ignore: skipWithoutKubectl("the kubectl LimitRanger test"),
  fn: () =>
    withServer(async (t) => {
      await jsonOk(t, "POST", "/api/v1/namespaces/default/limitranges", LIMITS);
      const k = kubectlFor(t);
      ok(await kubectl(k, ["run", "web", "--image=nginx"]));
      const out = ok(
        await kubectl(k, ["get", "pod", "web", "-o", "jsonpath={.spec.containers[0].resources}"]),
      );
      const res = JSON.parse(out);
      assert.deepEqual(res.limits, { cpu: "500m", memory: "256Mi" });
      assert.equal(res.requests.cpu, "100m");
    }),
});

Deno.test("DefaultTolerationSeconds and TaintNodesByCondition shape new pods and nodes", async () => {
  await withServer(async (t) => {
    const pod: Json = await jsonOk(t, "POST", "/api/v1/namespaces/default/pods", {
      metadata: { name: "p" },
      spec: { containers: [{ name: "c", image: "nginx" }] },
    });
    assert.deepEqual(
      pod.spec.tolerations.map((x: Json) => [x.key, x.effect, x.tolerationSeconds]),
      [
        ["node.kubernetes.io/not-ready", "NoExecute", 300],
        ["node.kubernetes.io/unreachable", "NoExecute", 300],
      ],
    );
    const node: Json = await jsonOk(t, "POST", "/api/v1/nodes", { metadata: { name: "n1" } });
    assert.deepEqual(node.spec.taints, [{
      key: "node.kubernetes.io/not-ready",
      effect: "NoSchedule",
    }]);
  });
});

Deno.test("PersistentVolumeClaimResize: growing needs a bound claim of an expandable class", async () => {
  await withServer(async (t) => {
    const ns = "/api/v1/namespaces/default/persistentvolumeclaims";
    for (const [name, allow] of [["fixed", false], ["grow", true]] as const) {
      await jsonOk(t, "POST", "/apis/storage.k8s.io/v1/storageclasses", {
        metadata: { name },
        provisioner: "example.com/p",
        allowVolumeExpansion: allow,
      });
      await jsonOk(t, "POST", ns, {
        metadata: { name },
        spec: {
          storageClassName: name,
          accessModes: ["ReadWriteOnce"],
          resources: { requests: { storage: "1Gi" } },
        },
      });
    }
    const merge = { "content-type": "application/merge-patch+json" };
    const grow = { spec: { resources: { requests: { storage: "2Gi" } } } };
    const unbound = await jsonCall(t, "PATCH", `${ns}/grow`, grow, merge);
    assert.equal(unbound.status, 403);
    assert.equal(
      unbound.json.message,
      'persistentvolumeclaims "grow" is forbidden: Only bound persistent volume claims can be expanded',
    );
    for (const name of ["fixed", "grow"]) {
      await jsonOk(t, "PUT", `${ns}/${name}/status`, {
        ...(await jsonOk(t, "GET", `${ns}/${name}`)),
        status: { phase: "Bound" },
      });
    }
    const fixed = await jsonCall(t, "PATCH", `${ns}/fixed`, grow, merge);
    assert.equal(fixed.status, 403);
    assert.equal(
      fixed.json.message,
      'persistentvolumeclaims "fixed" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize',
    );
    const grown = await jsonCall(t, "PATCH", `${ns}/grow`, grow, merge);
    assert.equal(grown.status, 200, JSON.stringify(grown.json));
  });
});

Deno.test("StorageObjectInUseProtection: finalizers, released once the claim is unused", async () => {
  await withServer(async (t) => {
    const ns = "/api/v1/namespaces/default";
    const pvc: Json = await jsonOk(t, "POST", `${ns}/persistentvolumeclaims`, {
      metadata: { name: "data" },
      spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
    });
    assert.deepEqual(pvc.metadata.finalizers, ["kubernetes.io/pvc-protection"]);
    await jsonOk(t, "POST", `${ns}/pods`, {
      metadata: { name: "user" },
      spec: {
        nodeName: "n1",
        containers: [{ name: "c", image: "nginx" }],
        volumes: [{ name: "d", persistentVolumeClaim: { claimName: "data" } }],
      },
    });
    await jsonOk(t, "DELETE", `${ns}/persistentvolumeclaims/data`);
    await new Promise((r) => setTimeout(r, 300));
    const held: Json = await jsonOk(t, "GET", `${ns}/persistentvolumeclaims/data`);
    assert.ok(held.metadata.deletionTimestamp);
    await jsonOk(t, "DELETE", `${ns}/pods/user?gracePeriodSeconds=0`);
    await eventually(
      "the claim gone",
      async () => (await jsonCall(t, "GET", `${ns}/persistentvolumeclaims/data`)).status === 404,
    );
    const pv: Json = await jsonOk(t, "POST", "/api/v1/persistentvolumes", {
      metadata: { name: "vol" },
      spec: {
        capacity: { storage: "1Gi" },
        accessModes: ["ReadWriteOnce"],
        hostPath: { path: "/tmp/x" },
      },
    });
    assert.deepEqual(pv.metadata.finalizers, ["kubernetes.io/pv-protection"]);
    await jsonOk(t, "DELETE", "/api/v1/persistentvolumes/vol");
    await eventually(
      "the volume gone",
      async () => (await jsonCall(t, "GET", "/api/v1/persistentvolumes/vol")).status === 404,
    );
  });
});

Deno.test("--disable-admission-plugins turns default plugins off", async () => {
  await withServer(async (t) => {
    const pod: Json = await jsonOk(t, "POST", "/api/v1/namespaces/default/pods", {
      metadata: { name: "p" },
      spec: { containers: [{ name: "c", image: "nginx" }] },
    });
    assert.equal(pod.spec.volumes, undefined);
    assert.equal(pod.spec.tolerations, undefined);
  }, ["--disable-admission-plugins=ServiceAccount,DefaultTolerationSeconds"]);
});
