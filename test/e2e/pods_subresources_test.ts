/**
 * End-to-end: what a pod update may change (kube's ValidatePodUpdate and its message), while
 * binding and status keep working; `pods/ephemeralcontainers`; the streaming and proxy
 * subresources served as 503; their discovery entries; and kubectl (`debug`, `logs`, `exec`,
 * `patch`).
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
  spawnKubectl,
} from "../support/kubectl.ts";

const NS = "/api/v1/namespaces/default";
const MERGE = { "content-type": "application/merge-patch+json" };
const SMP = { "content-type": "application/strategic-merge-patch+json" };
const APPLY = { "content-type": "application/apply-patch+yaml" };
const IMMUTABLE_MESSAGE = 'Pod "p" is invalid: spec: Forbidden: pod updates may not change ' +
  "fields other than `spec.containers[*].image`,`spec.initContainers[*].image`," +
  "`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations)," +
  "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

async function withServer(fn: (t: TestServer) => Promise<void>): Promise<void> {
  const t = await startTestServer();
  try {
    await fn(t);
  } finally {
    await t.close();
  }
}

async function createPod(t: TestServer, name = "p"): Promise<Json> {
  return await jsonOk(t, "POST", `${NS}/pods`, {
    metadata: { name },
    spec: {
      containers: [{ name: "c", image: "nginx" }],
      tolerations: [{ key: "k", operator: "Exists" }],
    },
  });
}

async function patch(t: TestServer, path: string, body: unknown, headers = MERGE) {
  return await jsonCall(t, "PATCH", path, body, headers);
}

Deno.test("pod updates may change only images, activeDeadlineSeconds and added tolerations", async () => {
  await withServer(async (t) => {
    await createPod(t);
    const node = await patch(t, `${NS}/pods/p`, { spec: { nodeName: "n" } });
    assert.equal(node.status, 422, JSON.stringify(node.json));
    assert.ok(node.json.message.startsWith(IMMUTABLE_MESSAGE), node.json.message);
    assert.match(node.json.message, /\+ \tNodeName: "n",/);
    assert.equal(node.json.details.causes[0].field, "spec");
    assert.match(node.json.details.causes[0].message, /^Forbidden: pod updates may not change/);

    const image = await patch(t, `${NS}/pods/p`, {
      spec: { containers: [{ name: "c", image: "nginx:1.27" }] },
    }, SMP);
    assert.equal(image.status, 200, JSON.stringify(image.json));
    assert.equal(image.json.spec.containers[0].image, "nginx:1.27");

    const added = await patch(t, `${NS}/pods/p`, {
      spec: { tolerations: [{ key: "k", operator: "Exists" }, { key: "x", operator: "Exists" }] },
    });
    assert.equal(added.status, 200, JSON.stringify(added.json));
    const removed = await patch(t, `${NS}/pods/p`, { spec: { tolerations: [] } });
    assert.equal(removed.status, 422);
    assert.match(
      removed.json.message,
      /spec\.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds/,
    );

    assert.equal(
      (await patch(t, `${NS}/pods/p`, { spec: { activeDeadlineSeconds: 100 } })).status,
      200,
    );
    const raised = await patch(t, `${NS}/pods/p`, { spec: { activeDeadlineSeconds: 200 } });
    assert.equal(raised.status, 422);
    assert.match(
      raised.json.message,
      /spec\.activeDeadlineSeconds: Invalid value: 200: must be less than or equal to previous value/,
    );

    const more = await patch(t, `${NS}/pods/p`, {
      spec: { containers: [{ name: "c", image: "nginx" }, { name: "d", image: "nginx" }] },
    });
    assert.equal(more.status, 422);
    assert.match(
      more.json.message,
      /spec\.containers: Forbidden: pod updates may not add or remove containers/,
    );

    // A PUT of the pod without the fields the server defaulted is the same pod.
    const current = await jsonOk(t, "GET", `${NS}/pods/p`);
    const bare = structuredClone(current);
    for (const k of ["dnsPolicy", "schedulerName", "securityContext", "enableServiceLinks"]) {
      delete bare.spec[k];
    }
    delete bare.spec.containers[0].terminationMessagePath;
    bare.metadata.labels = { touched: "yes" };
    const put = await jsonCall(t, "PUT", `${NS}/pods/p`, bare);
    assert.equal(put.status, 200, JSON.stringify(put.json));
    assert.equal(put.json.metadata.labels.touched, "yes");

    const applied = await jsonCall(
      t,
      "PATCH",
      `${NS}/pods/p?fieldManager=me`,
      {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "p" },
        spec: { containers: [{ name: "c", image: "nginx:1.27", command: ["sleep"] }] },
      },
      APPLY,
    );
    assert.equal(applied.status, 422);
    assert.match(applied.json.message, /pod updates may not change fields other than/);
  });
});

Deno.test("binding and status updates still set what a pod update may not", async () => {
  await withServer(async (t) => {
    await createPod(t);
    const bound = await jsonCall(t, "POST", `${NS}/pods/p/binding`, {
      apiVersion: "v1",
      kind: "Binding",
      metadata: { name: "p" },
      target: { kind: "Node", name: "n1" },
    });
    assert.equal(bound.status, 201, JSON.stringify(bound.json));
    const pod = await jsonOk(t, "GET", `${NS}/pods/p`);
    assert.equal(pod.spec.nodeName, "n1");
    pod.status = { ...pod.status, phase: "Running", podIP: "10.0.0.5" };
    pod.spec.nodeName = "elsewhere";
    const status = await jsonCall(t, "PUT", `${NS}/pods/p/status`, pod);
    assert.equal(status.status, 200, JSON.stringify(status.json));
    assert.equal(status.json.status.phase, "Running");
    assert.equal(status.json.spec.nodeName, "n1");
  });
});

Deno.test("pods/ephemeralcontainers adds ephemeral containers and nothing else", async () => {
  await withServer(async (t) => {
    await createPod(t);
    const path = `${NS}/pods/p/ephemeralcontainers`;
    const got = await jsonOk(t, "GET", path);
    assert.equal(got.kind, "Pod");
    const added = await patch(t, path, {
      spec: {
        nodeName: "ignored",
        ephemeralContainers: [{ name: "debugger", image: "busybox", stdin: true }],
      },
    }, SMP);
    assert.equal(added.status, 200, JSON.stringify(added.json));
    assert.equal(added.json.spec.nodeName, undefined);
    assert.deepEqual(added.json.spec.ephemeralContainers, [{
      name: "debugger",
      image: "busybox",
      stdin: true,
      terminationMessagePath: "/dev/termination-log",
      terminationMessagePolicy: "File",
      imagePullPolicy: "Always",
    }]);

    const dup = await patch(t, path, {
      spec: {
        ephemeralContainers: [{ name: "c", image: "busybox", ports: [{ containerPort: 80 }] }],
      },
    }, SMP);
    assert.equal(dup.status, 422);
    assert.match(dup.json.message, /spec\.ephemeralContainers\[\d\]\.name: Duplicate value: "c"/);
    assert.match(
      dup.json.message,
      /spec\.ephemeralContainers\[\d\]\.ports: Forbidden: cannot be set for an Ephemeral Container/,
    );

    const pod = await jsonOk(t, "GET", path);
    const changed = structuredClone(pod);
    changed.spec.ephemeralContainers[0].image = "alpine";
    const change = await jsonCall(t, "PUT", path, changed);
    assert.equal(change.status, 422);
    assert.match(
      change.json.message,
      /existing ephemeral containers "debugger" may not be changed/,
    );
    const gone = structuredClone(pod);
    gone.spec.ephemeralContainers = [];
    const remove = await jsonCall(t, "PUT", path, gone);
    assert.equal(remove.status, 422);
    assert.match(
      remove.json.message,
      /existing ephemeral containers "debugger" may not be removed/,
    );

    const viaPod = await patch(t, `${NS}/pods/p`, {
      spec: {
        ephemeralContainers: [{ name: "debugger", image: "busybox", stdin: true }, {
          name: "x",
          image: "busybox",
        }],
      },
    }, SMP);
    assert.equal(viaPod.status, 422);
    assert.match(viaPod.json.message, /pod updates may not change fields other than/);
    const onCreate = await jsonCall(t, "POST", `${NS}/pods`, {
      metadata: { name: "q" },
      spec: {
        containers: [{ name: "c", image: "nginx" }],
        ephemeralContainers: [{ name: "e", image: "busybox" }],
      },
    });
    assert.equal(onCreate.status, 422);
    assert.match(
      onCreate.json.message,
      /spec\.ephemeralContainers: Forbidden: cannot be set on create/,
    );
  });
});

Deno.test("streaming and proxy subresources are served: the proxies answer 503 at any path below them, the streams kube's errors for a pod without a node", async () => {
  await withServer(async (t) => {
    await createPod(t);
    await jsonOk(t, "POST", "/api/v1/nodes", { metadata: { name: "n1" } });
    // A pod not yet on a node has no logs, and nothing to exec or attach into.
    const log = await t.fetch(`${NS}/pods/p/log`);
    assert.equal(log.status, 200);
    assert.equal(await log.text(), "");
    const streams: [string, string, RegExp][] = [
      ["POST", `${NS}/pods/p/exec?command=ls`, /^pod p does not have a host assigned$/],
      ["GET", `${NS}/pods/p/exec?container=nope`, /^container nope is not valid for pod p$/],
      ["POST", `${NS}/pods/p/attach`, /^pod p does not have a host assigned$/],
      ["POST", `${NS}/pods/p/portforward`, /^pod p does not have a host assigned$/],
      ["GET", `${NS}/pods/p/log?tailLines=-1`, /tailLines: Invalid value/],
    ];
    for (const [method, path, message] of streams) {
      const r = await jsonCall(t, method, path);
      assert.equal(r.status, 400, `${method} ${path}: ${JSON.stringify(r.json)}`);
      assert.match(r.json.message, message);
    }
    assert.equal((await jsonCall(t, "DELETE", `${NS}/pods/p/exec`)).status, 405);
    const cases: [string, string][] = [
      ["GET", `${NS}/pods/p/proxy`],
      ["DELETE", `${NS}/pods/p/proxy/some/path`],
      ["GET", `${NS}/pods/p:8080/proxy/`],
      ["GET", "/api/v1/nodes/n1/proxy/metrics"],
      ["PUT", "/api/v1/nodes/n1/proxy"],
      ["GET", `${NS}/services/s/proxy/x`],
    ];
    for (const [method, path] of cases) {
      const r = await jsonCall(t, method, path);
      assert.equal(r.status, 503, `${method} ${path}: ${JSON.stringify(r.json)}`);
      assert.equal(r.json.reason, "ServiceUnavailable");
      assert.match(
        r.json.message,
        /(pods|nodes|services)\/proxy is not available/,
      );
    }
    const core = await jsonOk(t, "GET", "/api/v1");
    const byName = Object.fromEntries(core.resources.map((r: Json) => [r.name, r]));
    const verbs = (name: string) => byName[name]?.verbs;
    assert.deepEqual(verbs("pods/log"), ["get"]);
    assert.deepEqual(verbs("pods/exec"), ["create", "get"]);
    assert.deepEqual(verbs("pods/attach"), ["create", "get"]);
    assert.deepEqual(verbs("pods/portforward"), ["create", "get"]);
    assert.deepEqual(verbs("pods/proxy"), ["create", "delete", "get", "patch", "update"]);
    assert.deepEqual(verbs("nodes/proxy"), ["create", "delete", "get", "patch", "update"]);
    assert.deepEqual(verbs("services/proxy"), ["create", "delete", "get", "patch", "update"]);
    assert.deepEqual(verbs("pods/ephemeralcontainers"), ["get", "patch", "update"]);
    assert.equal(byName["pods/exec"].kind, "PodExecOptions");
    assert.equal(byName["pods/binding"].kind, "Binding");
    assert.deepEqual(byName["pods/eviction"], {
      name: "pods/eviction",
      singularName: "",
      namespaced: true,
      group: "policy",
      version: "v1",
      kind: "Eviction",
      verbs: ["create"],
    });
  });
});

Deno.test({
  name:
    "kubectl debug adds an ephemeral container; logs, exec and patch report the server's errors",
  ignore: skipWithoutKubectl("the kubectl pod subresource tests"),
  async fn() {
    await withServer(async (t) => {
      const k = kubectlFor(t);
      ok(await kubectl(k, ["run", "p", "--image=nginx"]));
      // Without -i kubectl debug returns once the container is recorded.
      const plain = await kubectl(k, ["debug", "pod/p", "--image=busybox", "--container=dbg"]);
      assert.equal(plain.code, 0, plain.stderr);
      // With -i (what `-it=false` leaves on) it then waits to attach: the container is
      // recorded all the same.
      const child = spawnKubectl(k, ["debug", "pod/p", "-it=false", "--image=busybox"]);
      try {
        await eventually("the second debug container", async () => {
          const pod = await jsonOk(t, "GET", `${NS}/pods/p`);
          const names = (pod.spec.ephemeralContainers ?? []).map((c: Json) => c.name);
          return names.length === 2 && names;
        });
      } finally {
        try {
          child.kill();
        } catch {
          // It ended by itself.
        }
        await child.output();
      }
      const pod = await jsonOk(t, "GET", `${NS}/pods/p`);
      assert.equal(pod.spec.ephemeralContainers[0].name, "dbg");
      assert.equal(pod.spec.ephemeralContainers[0].image, "busybox");
      assert.match(pod.spec.ephemeralContainers[1].name, /^debugger-/);

      // The pod is on no node: no logs yet, nothing to exec into.
      const logs = await kubectl(k, ["logs", "p", "-c", "p"]);
      assert.equal(logs.code, 0, logs.stderr);
      assert.equal(logs.stdout, "");
      const exec = await kubectl(k, ["exec", "p", "-c", "p", "--", "ls"]);
      assert.notEqual(exec.code, 0);
      assert.match(exec.stderr, /pod p does not have a host assigned/);
      const patched = await kubectl(k, ["patch", "pod", "p", "-p", '{"spec":{"nodeName":"n"}}']);
      assert.notEqual(patched.code, 0);
      assert.match(
        patched.stderr,
        /The Pod "p" is invalid: spec: Forbidden: pod updates may not change fields other than `spec\.containers\[\*\]\.image`/,
      );
      ok(await kubectl(k, ["set", "image", "pod/p", "p=nginx:1.27"]));
    });
  },
});
