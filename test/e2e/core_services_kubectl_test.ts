/** kubectl 1.32 against Services: create service, expose, get -o wide. */
import assert from "node:assert/strict";
import {
  kubectlFor,
  kubectlOk as ok,
  runKubectl as kubectl,
  skipWithoutKubectl,
} from "../support/kubectl.ts";
import { startTestServer } from "../support/test_server.ts";
import { API_ONLY_FLAGS } from "../support/api_only.ts";

Deno.test({
  name: "kubectl creates, exposes, lists and deletes Services",
  ignore: skipWithoutKubectl("the Service kubectl tests"),
  async fn() {
    const s = await startTestServer(API_ONLY_FLAGS);
    const k = kubectlFor(s);
    try {
      assert.match(
        ok(await kubectl(k, ["create", "service", "clusterip", "s", "--tcp=80:8080"])),
        /service\/s created/,
      );
      assert.match(
        ok(
          await kubectl(k, [
            "create",
            "service",
            "nodeport",
            "n",
            "--tcp=80:8080",
            "--node-port=30080",
          ]),
        ),
        /service\/n created/,
      );
      ok(await kubectl(k, ["run", "p1", "--image=nginx", "--labels=app=p1"]));
      assert.match(
        ok(await kubectl(k, ["expose", "pod", "p1", "--port=80"])),
        /service\/p1 exposed/,
      );
      const wide = ok(await kubectl(k, ["get", "svc", "-o", "wide"]));
      const lines = wide.trim().split("\n");
      assert.match(
        lines[0],
        /^NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE\s+SELECTOR$/,
      );
      assert.match(
        wide,
        /\nkubernetes\s+ClusterIP\s+10\.96\.0\.1\s+<none>\s+443\/TCP\s+\S+\s+<none>/,
      );
      assert.match(
        wide,
        /\nn\s+NodePort\s+10\.\d+\.\d+\.\d+\s+<none>\s+80:30080\/TCP\s+\S+\s+app=n/,
      );
      assert.match(wide, /\np1\s+ClusterIP\s+10\.\d+\.\d+\.\d+\s+<none>\s+80\/TCP\s+\S+\s+app=p1/);
      assert.match(wide, /\ns\s+ClusterIP\s+10\.\d+\.\d+\.\d+\s+<none>\s+80\/TCP\s+\S+\s+app=s/);
      const plain = ok(await kubectl(k, ["get", "svc", "s"]));
      assert.match(
        plain.split("\n")[0],
        /^NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE$/,
      );
      const ip = ok(await kubectl(k, ["get", "svc", "s", "-o", "jsonpath={.spec.clusterIP}"]));
      assert.match(ip, /^10\./);
      assert.match(ok(await kubectl(k, ["get", "all"])), /service\/s\s+ClusterIP/);
      assert.match(
        ok(await kubectl(k, ["get", "ep", "kubernetes"])),
        /kubernetes\s+127\.0\.0\.1:\d+/,
      );
      const dup = await kubectl(k, [
        "create",
        "service",
        "nodeport",
        "m",
        "--tcp=80:8080",
        "--node-port=30080",
      ]);
      assert.notEqual(dup.code, 0);
      assert.match(dup.stderr, /provided port is already allocated/);
      assert.match(ok(await kubectl(k, ["delete", "svc", "n"])), /service "n" deleted/);
      ok(
        await kubectl(k, [
          "create",
          "service",
          "nodeport",
          "m",
          "--tcp=80:8080",
          "--node-port=30080",
        ]),
      );
      const applied = `apiVersion: v1
kind: Service
metadata:
  name: a
spec:
  selector:
    app: a
  ports:
  - port: 80
`;
      assert.match(ok(await kubectl(k, ["apply", "-f", "-"], applied)), /service\/a created/);
      assert.match(
        ok(await kubectl(k, ["apply", "-f", "-"], applied.replace("port: 80", "port: 81"))),
        /service\/a configured/,
      );
      assert.match(
        ok(
          await kubectl(
            k,
            ["apply", "--server-side", "-f", "-"],
            applied.replace("port: 80", "port: 81"),
          ),
        ),
        /service\/a serverside-applied/,
      );
      assert.match(ok(await kubectl(k, ["get", "cs"])), /storage-0\s+Healthy\s+ok/);
      ok(await kubectl(k, ["create", "quota", "q", "--hard=pods=3"]));
      assert.match(ok(await kubectl(k, ["get", "quota"])), /q\s+\S+\s+pods: (0\/0|\d+\/3)/);
      const rc = `apiVersion: v1
kind: ReplicationController
metadata:
  name: rc
spec:
  replicas: 2
  template:
    metadata:
      labels:
        app: rc
    spec:
      containers:
      - name: c
        image: nginx
`;
      ok(await kubectl(k, ["apply", "-f", "-"], rc));
      assert.match(
        ok(await kubectl(k, ["get", "rc", "-o", "wide"])),
        /rc\s+2\s+0\s+0\s+\S+\s+c\s+nginx\s+app=rc/,
      );
      assert.match(ok(await kubectl(k, ["get", "all"])), /replicationcontroller\/rc/);
      assert.match(ok(await kubectl(k, ["scale", "rc", "rc", "--replicas=5"])), /scaled/);
      assert.equal(
        ok(await kubectl(k, ["get", "rc", "rc", "-o", "jsonpath={.spec.replicas}"])),
        "5",
      );
      const scale = JSON.parse(
        ok(
          await kubectl(k, [
            "get",
            "--raw",
            "/api/v1/namespaces/default/replicationcontrollers/rc/scale",
          ]),
        ),
      );
      assert.deepEqual([scale.kind, scale.spec, scale.status], [
        "Scale",
        { replicas: 5 },
        { replicas: 0, selector: "app=rc" },
      ]);
    } finally {
      await s.close();
    }
  },
});
