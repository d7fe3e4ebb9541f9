/**
 * End-to-end with Debian's python3-kubernetes client and the generated admin.kubeconfig:
 * list namespaces, create, read and delete a ConfigMap (a typed V1Status back) and a
 * ServiceAccount (the object back); create a Deployment, a Service and a ReplicationController
 * from YAML with kubernetes.utils.create_from_yaml, read and delete them. Skips (with a message) where
 * /usr/bin/python3 cannot import kubernetes.
 */
import assert from "node:assert/strict";
import { startTestServer } from "../support/test_server.ts";
import { call } from "./foundation_helpers.ts";

const PYTHON = "/usr/bin/python3";

function hasPythonClient(): boolean {
  try {
    const out = new Deno.Command(PYTHON, {
      args: ["-c", "import kubernetes"],
      stdout: "null",
      stderr: "null",
    }).outputSync();
    return out.success;
  } catch {
    return false;
  }
}

const AVAILABLE = hasPythonClient();
if (!AVAILABLE) {
  console.warn(
    `${PYTHON} cannot import kubernetes (apt-get install python3-kubernetes): ` +
      "skipping the Python client test",
  );
}

const SCRIPT = `
import json, sys
from kubernetes import client, config
config.load_kube_config(config_file=sys.argv[1])
v1 = client.CoreV1Api()
out = {"namespaces": sorted(n.metadata.name for n in v1.list_namespace().items)}
body = client.V1ConfigMap(metadata=client.V1ObjectMeta(name="from-python"), data={"lang": "python"})
created = v1.create_namespaced_config_map("default", body)
out["created_rv"] = created.metadata.resource_version
read = v1.read_namespaced_config_map("from-python", "default")
out["read_data"] = read.data
out["read_uid_matches"] = read.metadata.uid == created.metadata.uid
deleted = v1.delete_namespaced_config_map("from-python", "default")
out["delete_status"] = {"type": type(deleted).__name__, "status": deleted.status,
    "name": deleted.details.name, "kind": deleted.details.kind, "group": deleted.details.group,
    "uid_matches": deleted.details.uid == created.metadata.uid}
sa = v1.create_namespaced_service_account("default", client.V1ServiceAccount(
    metadata=client.V1ObjectMeta(name="sa-from-python")))
gone = v1.delete_namespaced_service_account("sa-from-python", "default")
out["delete_sa"] = {"type": type(gone).__name__, "name": gone.metadata.name}
try:
    v1.read_namespaced_config_map("from-python", "default")
    out["after_delete"] = 200
except client.exceptions.ApiException as e:
    out["after_delete"] = e.status
print(json.dumps(out))
`;

Deno.test({
  name: "python3-kubernetes lists namespaces and creates, reads and deletes a ConfigMap",
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
      const stderr = new TextDecoder().decode(out.stderr);
      assert.equal(out.code, 0, stderr);
      const result = JSON.parse(new TextDecoder().decode(out.stdout));
      assert.deepEqual(result.namespaces, [
        "default",
        "kube-node-lease",
        "kube-public",
        "kube-system",
      ]);
      assert.match(result.created_rv, /^[1-9][0-9]*$/);
      assert.deepEqual(result.read_data, { lang: "python" });
      assert.equal(result.read_uid_matches, true);
      assert.equal(result.after_delete, 404);
      assert.deepEqual(result.delete_status, {
        type: "V1Status",
        status: "Success",
        name: "from-python",
        kind: "configmaps",
        group: null,
        uid_matches: true,
      });
      assert.deepEqual(result.delete_sa, { type: "V1ServiceAccount", name: "sa-from-python" });
      assert.equal(
        (await call(s, "GET", "/api/v1/namespaces/default/configmaps/from-python")).status,
        404,
      );
    } finally {
      await s.close();
      await Deno.remove(home, { recursive: true }).catch(() => {});
    }
  },
});

const YAML_SCRIPT = `
import json, sys, tempfile, os
from kubernetes import client, config, utils
config.load_kube_config(config_file=sys.argv[1])
api = client.ApiClient()
manifest = """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        ports:
        - containerPort: 80
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: {app: web}
  ports:
  - port: 80
    targetPort: 80
---
apiVersion: v1
kind: ReplicationController
metadata:
  name: legacy
spec:
  replicas: 1
  selector: {app: legacy}
  template:
    metadata:
      labels: {app: legacy}
    spec:
      containers:
      - name: c
        image: busybox
"""
with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
    f.write(manifest)
created = utils.create_from_yaml(api, f.name, namespace="default")
os.unlink(f.name)
out = {"created": [type(o).__name__ for group in created for o in group]}
apps, core = client.AppsV1Api(api), client.CoreV1Api(api)
d = apps.read_namespaced_deployment("web", "default")
s = core.read_namespaced_service("web", "default")
rc = core.read_namespaced_replication_controller("legacy", "default")
out["read"] = {"deployment_replicas": d.spec.replicas, "service_ip": bool(s.spec.cluster_ip),
    "service_port": s.spec.ports[0].port, "rc_selector": rc.spec.selector}
# The client types every answer V1Status; kind tells a Status from a returned object.
out["deleted"] = [
    apps.delete_namespaced_deployment("web", "default").kind,
    core.delete_namespaced_service("web", "default").kind,
    core.delete_namespaced_replication_controller("legacy", "default").kind,
]
gone = []
for read in (lambda: apps.read_namespaced_deployment("web", "default"),
             lambda: core.read_namespaced_service("web", "default"),
             lambda: core.read_namespaced_replication_controller("legacy", "default")):
    try:
        read()
        gone.append(200)
    except client.exceptions.ApiException as e:
        gone.append(e.status)
out["after_delete"] = gone
print(json.dumps(out))
`;

Deno.test({
  name:
    "python3-kubernetes creates a Deployment, a Service and an RC from YAML, reads and deletes them",
  ignore: !AVAILABLE,
  async fn() {
    const s = await startTestServer();
    const home = await Deno.makeTempDir({ prefix: "python-home-" });
    try {
      const out = await new Deno.Command(PYTHON, {
        args: ["-c", YAML_SCRIPT, s.server.kubeconfigPath],
        env: { HOME: home, PATH: "/usr/bin:/bin", TMPDIR: home },
        clearEnv: true,
        stdout: "piped",
        stderr: "piped",
      }).output();
      const stderr = new TextDecoder().decode(out.stderr);
      assert.equal(out.code, 0, stderr);
      const result = JSON.parse(new TextDecoder().decode(out.stdout));
      assert.deepEqual(result.created, ["V1Deployment", "V1Service", "V1ReplicationController"]);
      assert.deepEqual(result.read, {
        deployment_replicas: 2,
        service_ip: true,
        service_port: 80,
        rc_selector: { app: "legacy" },
      });
      // kube's registries: Deployments and RCs answer a Status, Services the deleted object.
      assert.deepEqual(result.deleted, ["Status", "Service", "Status"]);
      assert.deepEqual(result.after_delete, [404, 404, 404]);
    } finally {
      await s.close();
      await Deno.remove(home, { recursive: true }).catch(() => {});
    }
  },
});
