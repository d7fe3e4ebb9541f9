/**
 * End to end with the client libraries' CustomObjectsApi against a custom resource:
 * @kubernetes/client-node and Debian's python3-kubernetes create, list, watch and patch an
 * instance. The Python test skips (with a message) where python3 cannot import kubernetes.
 */
import assert from "node:assert/strict";
import { CustomObjectsApi, KubeConfig, Watch } from "@kubernetes/client-node";
import { eventually } from "../support/eventually.ts";
import { startTestServer } from "../support/test_server.ts";
import { createEstablished, cronTab, cronTabCrd, GROUP } from "./_crd_helpers.ts";

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

Deno.test({
  name: "@kubernetes/client-node CustomObjectsApi creates, lists, watches and patches",
  // The client's HTTP agent keeps sockets alive past a test's end.
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const s = await startTestServer();
    try {
      await createEstablished(s, cronTabCrd());
      const kc = new KubeConfig();
      kc.loadFromFile(s.server.kubeconfigPath);
      const api = kc.makeApiClient(CustomObjectsApi);
      const at = { group: GROUP, version: "v1", namespace: "default", plural: "crontabs" };
      const seen: string[] = [];
      const watch = new Watch(kc);
      const req = await watch.watch(
        `/apis/${GROUP}/v1/namespaces/default/crontabs`,
        {},
        (type: string, obj: { metadata?: { name?: string } }) => {
          seen.push(`${type} ${obj.metadata?.name}`);
        },
        () => {},
      );
      const created = await api.createNamespacedCustomObject({ ...at, body: cronTab("node") });
      assert.equal(created.metadata.name, "node");
      const list = await api.listNamespacedCustomObject(at);
      // deno-lint-ignore no-explicit-any
      assert.deepEqual(list.items.map((i: any) => i.metadata.name), ["node"]);
      const patched = await api.patchNamespacedCustomObject({
        ...at,
        name: "node",
        body: [{ op: "replace", path: "/spec/replicas", value: 7 }],
      });
      assert.equal(patched.spec.replicas, 7);
      await eventually("the watch events", () => seen.length >= 2 || undefined);
      req.abort();
      assert.deepEqual(seen.slice(0, 2), ["ADDED node", "MODIFIED node"]);
    } finally {
      await s.close();
    }
  },
});

const PYTHON_CLIENT = hasPythonClient();
if (!PYTHON_CLIENT) {
  console.warn(
    `${PYTHON} cannot import kubernetes (apt-get install python3-kubernetes): ` +
      "skipping the Python custom resource test",
  );
}

const SCRIPT = `
import json, sys
from kubernetes import client, config, watch
config.load_kube_config(config_file=sys.argv[1])
api = client.CustomObjectsApi()
g, v, ns, p = "${GROUP}", "v1", "default", "crontabs"
body = {"apiVersion": g + "/v1", "kind": "CronTab", "metadata": {"name": "py"},
        "spec": {"cronSpec": "* * * * */5", "image": "img", "replicas": 1}}
out = {"created": api.create_namespaced_custom_object(g, v, ns, p, body)["metadata"]["name"]}
out["listed"] = [i["metadata"]["name"] for i in api.list_namespaced_custom_object(g, v, ns, p)["items"]]
out["patched"] = api.patch_namespaced_custom_object(g, v, ns, p, "py", {"spec": {"replicas": 3}})["spec"]["replicas"]
events = []
w = watch.Watch()
for ev in w.stream(api.list_namespaced_custom_object, g, v, ns, p, timeout_seconds=5):
    events.append(ev["type"] + " " + ev["object"]["metadata"]["name"])
    w.stop()
out["watched"] = events
print(json.dumps(out))
`;

Deno.test({
  name: "python3-kubernetes CustomObjectsApi creates, lists, patches and watches",
  ignore: !PYTHON_CLIENT,
  async fn() {
    const s = await startTestServer();
    const home = await Deno.makeTempDir({ prefix: "python-home-" });
    try {
      await createEstablished(s, cronTabCrd());
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
        created: "py",
        listed: ["py"],
        patched: 3,
        watched: ["ADDED py"],
      });
    } finally {
      await s.close();
      await Deno.remove(home, { recursive: true }).catch(() => {});
    }
  },
});
