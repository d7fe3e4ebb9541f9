/**
 * End-to-end with kubectl 1.20 (Debian's kubernetes-client), whose drain finds the eviction
 * subresource through the policy group's preferred version and posts Evictions with the
 * policy/v1beta1 client: a drain blocked by a PodDisruptionBudget, then one that completes.
 * Skips where that kubectl cannot be had.
 */
import assert from "node:assert/strict";
import { kubectlFor, kubectlOk as ok, runKubectl } from "../support/kubectl.ts";
import { findKubectl120 } from "../support/kubectl_120.ts";
import { startTestServer } from "../support/test_server.ts";
import { jsonCall, jsonOk } from "../support/json_call.ts";
import { eventually } from "../support/eventually.ts";

const KUBECTL_120 = await findKubectl120("the kubectl 1.20 drain tests");
const NS = "/api/v1/namespaces/default";

Deno.test({
  name: "kubectl 1.20 drain evicts through pods/eviction and honours a PodDisruptionBudget",
  ignore: KUBECTL_120 === undefined,
  async fn() {
    const s = await startTestServer();
    try {
      const target = { ...kubectlFor(s), bin: KUBECTL_120 };
      const k = (args: string[]) => runKubectl(target, args);
      await jsonOk(s, "POST", "/api/v1/nodes", { metadata: { name: "n1" } });
      await jsonOk(s, "POST", "/apis/policy/v1/namespaces/default/poddisruptionbudgets", {
        metadata: { name: "web" },
        spec: { minAvailable: 1, selector: { matchLabels: { app: "web" } } },
      });
      await jsonOk(s, "POST", `${NS}/pods`, {
        metadata: { name: "a", labels: { app: "web" } },
        spec: { nodeName: "n1", containers: [{ name: "c", image: "nginx" }] },
      });
      const pod = await jsonOk(s, "GET", `${NS}/pods/a`);
      pod.status = { phase: "Running", conditions: [{ type: "Ready", status: "True" }] };
      await jsonOk(s, "PUT", `${NS}/pods/a/status`, pod);
      await eventually("the budget's status", async () => {
        const pdb = await jsonOk(
          s,
          "GET",
          "/apis/policy/v1/namespaces/default/poddisruptionbudgets/web",
        );
        return pdb.status.currentHealthy === 1 && pdb.status.observedGeneration === 1;
      });
      const blocked = await k(["drain", "n1", "--force", "--grace-period=0", "--timeout=3s"]);
      assert.notEqual(blocked.code, 0);
      assert.match(
        blocked.stderr + blocked.stdout,
        /Cannot evict pod as it would violate the pod's disruption budget/,
      );
      assert.equal((await jsonCall(s, "GET", `${NS}/pods/a`)).status, 200);
      await jsonOk(s, "DELETE", "/apis/policy/v1/namespaces/default/poddisruptionbudgets/web");
      const drained = await k(["drain", "n1", "--force", "--grace-period=0", "--timeout=60s"]);
      assert.equal(drained.code, 0, drained.stderr + drained.stdout);
      assert.match(ok(drained), /pod\/a evicted/);
      assert.equal((await jsonCall(s, "GET", `${NS}/pods/a`)).status, 404);
    } finally {
      await s.close();
    }
  },
});
