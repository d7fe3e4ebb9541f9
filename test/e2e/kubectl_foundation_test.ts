/**
 * End-to-end with the real kubectl and nothing but the generated admin.kubeconfig: the
 * commands of the foundation's acceptance list. Skips (with a message) where kubectl is
 * not installed.
 */
import assert from "node:assert/strict";
import {
  kubectlFor,
  kubectlOk as ok,
  runKubectl as kubectl,
  skipWithoutKubectl,
} from "../support/kubectl.ts";
import { startTestServer } from "../support/test_server.ts";
import { call } from "./foundation_helpers.ts";
import { eventually } from "../support/eventually.ts";

const MANIFEST = `apiVersion: v1
kind: Namespace
metadata:
  name: kubectl-demo
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: one
  namespace: kubectl-demo
data:
  key: "1"
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: two
  namespace: kubectl-demo
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: three
  namespace: kubectl-demo
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: four
  namespace: kubectl-demo
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: five
  namespace: kubectl-demo
`;

Deno.test({
  name: "kubectl works with the generated admin.kubeconfig",
  ignore: skipWithoutKubectl("the kubectl foundation tests"),
  async fn(t) {
    const s = await startTestServer();
    const k = kubectlFor(s);
    try {
      await t.step("kubectl get ns", async () => {
        const out = ok(await kubectl(k, ["get", "ns"]));
        for (const ns of ["default", "kube-system", "kube-public", "kube-node-lease"]) {
          assert.match(out, new RegExp(`^${ns}\\s`, "m"));
        }
      });
      await t.step("kubectl get --raw '/readyz?verbose'", async () => {
        const out = ok(await kubectl(k, ["get", "--raw", "/readyz?verbose"]));
        assert.match(out, /^\[\+\]etcd ok$/m);
        assert.match(out, /readyz check passed/);
      });
      await t.step("kubectl api-resources", async () => {
        const out = ok(await kubectl(k, ["api-resources"]));
        assert.match(out, /^configmaps\s+cm\s+v1\s+true\s+ConfigMap$/m);
        assert.match(out, /^namespaces\s+ns\s+v1\s+false\s+Namespace$/m);
        assert.match(out, /^leases\s+coordination\.k8s\.io\/v1\s+true\s+Lease$/m);
      });
      await t.step("kubectl create -f (namespace and configmaps) --validate=false", async () => {
        const out = ok(await kubectl(k, ["create", "-f", "-", "--validate=false"], MANIFEST));
        assert.match(out, /namespace\/kubectl-demo created/);
        assert.match(out, /configmap\/five created/);
      });
      await t.step("kubectl get cm -A", async () => {
        const out = ok(await kubectl(k, ["get", "cm", "-A"]));
        assert.match(out, /^kubectl-demo\s+one\s+1\s/m);
        assert.match(out, /^kubectl-demo\s+two\s+0\s/m);
      });
      await t.step("kubectl get cm -n <ns> --chunk-size=2", async () => {
        const r = await kubectl(k, [
          "get",
          "cm",
          "-n",
          "kubectl-demo",
          "--chunk-size=2",
          "-v=6",
        ]);
        const out = ok(r);
        const names = out.trim().split("\n").slice(1).map((l) => l.split(/\s+/)[0]);
        // With the root-ca-cert-publisher's ConfigMap, as in every namespace of a kube cluster.
        assert.deepEqual(names.sort(), ["five", "four", "kube-root-ca.crt", "one", "three", "two"]);
        // Three pages: two continue requests.
        assert.equal(r.stderr.match(/configmaps\?continue=/g)?.length, 2, r.stderr);
        assert.match(r.stderr, /limit=2/);
      });
      await t.step("kubectl delete ns --wait=false, then everything goes", async () => {
        const out = ok(await kubectl(k, ["delete", "ns", "kubectl-demo", "--wait=false"]));
        assert.match(out, /namespace "kubectl-demo" deleted/);
        await eventually("namespace kubectl-demo to disappear", async () => {
          return (await call(s, "GET", "/api/v1/namespaces/kubectl-demo")).status === 404;
        }, { timeoutMs: 60_000 });
        // What is left is the kube-root-ca.crt of the other namespaces, kube-public's
        // cluster-info (kept by the bootstrap signer's start, as kubeadm creates it) and
        // kube-system's extension-apiserver-authentication (as kube-apiserver publishes it).
        const cms = ok(await kubectl(k, ["get", "cm", "-A", "-o", "name"]));
        assert.deepEqual(
          cms.trim().split("\n").filter((l) =>
            l !== "configmap/kube-root-ca.crt" && l !== "configmap/cluster-info" &&
            l !== "configmap/extension-apiserver-authentication"
          ),
          [],
        );
        const nsList = ok(await kubectl(k, ["get", "ns", "-o", "name"]));
        assert.doesNotMatch(nsList, /kubectl-demo/);
      });
    } finally {
      await s.close();
    }
  },
});
