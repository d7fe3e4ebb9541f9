/**
 * End-to-end with the real kubectl against the apps/v1 and batch/v1 kinds: create deployment,
 * scale it, get (plain, wide, all), create job and cronjob. Skips where kubectl is absent.
 */
import assert from "node:assert/strict";
import {
  kubectlFor,
  kubectlOk as ok,
  runKubectl as kubectl,
  skipWithoutKubectl,
} from "../support/kubectl.ts";
import { startTestServer } from "../support/test_server.ts";

Deno.test({
  name: "kubectl create, scale and get deployment work against the server",
  ignore: skipWithoutKubectl("the kubectl deployment tests"),
  async fn() {
    const s = await startTestServer();
    try {
      const k = kubectlFor(s);
      assert.match(
        ok(await kubectl(k, ["create", "deployment", "web", "--image=nginx"])),
        /deployment.apps\/web created/,
      );
      const got = JSON.parse(ok(await kubectl(k, ["get", "deploy", "web", "-o", "json"])));
      assert.equal(got.spec.replicas, 1);
      assert.deepEqual(got.spec.strategy, {
        type: "RollingUpdate",
        rollingUpdate: { maxUnavailable: "25%", maxSurge: "25%" },
      });
      assert.equal(got.spec.revisionHistoryLimit, 10);
      assert.equal(got.spec.progressDeadlineSeconds, 600);
      const c = got.spec.template.spec.containers[0];
      assert.equal(c.imagePullPolicy, "Always");
      assert.equal(c.terminationMessagePath, "/dev/termination-log");
      assert.equal(got.spec.template.spec.restartPolicy, "Always");
      assert.equal(got.metadata.generation, 1);
      assert.match(
        ok(await kubectl(k, ["scale", "deployment", "web", "--replicas=3"])),
        /deployment.apps\/web scaled/,
      );
      const scaled = JSON.parse(ok(await kubectl(k, ["get", "deployment/web", "-o", "json"])));
      assert.equal(scaled.spec.replicas, 3);
      assert.equal(scaled.metadata.generation, 2);
      const table = ok(await kubectl(k, ["get", "deploy"]));
      assert.match(table, /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\n/);
      assert.match(table, /\nweb\s+0\/3\s+0\s+0\s+\S+\n/);
      const wide = ok(await kubectl(k, ["get", "deploy", "-o", "wide"]));
      assert.match(
        wide,
        /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR\n/,
      );
      assert.match(wide, /\nweb\s+0\/3\s+0\s+0\s+\S+\s+nginx\s+nginx\s+app=web\n/);
      const all = ok(await kubectl(k, ["get", "all"]));
      assert.match(all, /deployment.apps\/web\s+0\/3/);
    } finally {
      await s.close();
    }
  },
});
