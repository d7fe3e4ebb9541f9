/**
 * End-to-end with Debian's python3-kubernetes client and the generated admin.kubeconfig:
 * list namespaces, create, read and delete a ConfigMap. Skips (with a message) where
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
