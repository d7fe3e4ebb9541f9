/**
 * `--runtime-config` end to end: a disabled built-in version leaves discovery, OpenAPI and
 * routing while its objects stay stored; enabling it again brings them back; an unknown
 * version stops the server at start. With kubectl (where present), `kubectl get jobs` fails
 * with "the server doesn't have a resource type" while batch/v1 is off.
 */
import assert from "node:assert/strict";
import { parseServerOptions } from "../../apiserver/options.ts";
import { startServer } from "../../apiserver/server.ts";
import { Logger } from "../../shared/log/mod.ts";
import { KUBECTL, runKubectl } from "../support/kubectl.ts";
import { startTestServer, type TestServer } from "../support/test_server.ts";

const JOB = {
  apiVersion: "batch/v1",
  kind: "Job",
  metadata: { name: "kept" },
  spec: {
    template: {
      spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }] },
    },
  },
};

async function kubectlGet(ts: TestServer, what: string) {
  if (!KUBECTL) return undefined;
  const home = await Deno.makeTempDir({ prefix: "kubectl-home-" });
  try {
    return await runKubectl({ kubeconfig: ts.server.kubeconfigPath, home }, ["get", what]);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
}

async function status(ts: TestServer, path: string): Promise<number> {
  const res = await ts.fetch(path);
  await res.body?.cancel();
  return res.status;
}

Deno.test("--runtime-config=batch/v1=false hides batch/v1; re-enabling restores its objects", async () => {
  const dir = await Deno.makeTempDir({ prefix: "runtime-config-" });
  try {
    let ts = await startTestServer([], { dir, keepDir: true });
    const created = await ts.fetch("/apis/batch/v1/namespaces/default/jobs", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(JOB),
    });
    assert.equal(created.status, 201, await created.text());
    await ts.close();

    ts = await startTestServer(["--runtime-config=batch/v1=false"], { dir, keepDir: true });
    try {
      assert.equal(await status(ts, "/apis/batch/v1"), 404);
      assert.equal(await status(ts, "/apis/batch/v1/namespaces/default/jobs"), 404);
      assert.equal(await status(ts, "/apis/batch/v1/namespaces/default/jobs/kept"), 404);
      assert.equal(await status(ts, "/apis/batch/v1/cronjobs"), 404);
      assert.equal(await status(ts, "/openapi/v3/apis/batch/v1"), 404);
      const groups = await (await ts.fetch("/apis")).json();
      assert.ok(!groups.groups.some((g: { name: string }) => g.name === "batch"));
      const paths = Object.keys((await (await ts.fetch("/openapi/v3")).json()).paths);
      assert.ok(!paths.includes("apis/batch/v1"), paths.join(","));
      const v2 = await (await ts.fetch("/openapi/v2")).json();
      assert.ok(!Object.keys(v2.paths).some((p) => p.startsWith("/apis/batch/v1/")));
      assert.equal(await status(ts, "/apis/apps/v1/deployments"), 200);
      const jobs = await kubectlGet(ts, "jobs");
      if (jobs) {
        assert.notEqual(jobs.code, 0);
        assert.match(jobs.stderr, /the server doesn't have a resource type "jobs"/);
        const cronjobs = await kubectlGet(ts, "cronjobs");
        assert.match(cronjobs!.stderr, /the server doesn't have a resource type "cronjobs"/);
      } else console.log("kubectl not found: kubectl steps skipped");
    } finally {
      await ts.close();
    }

    ts = await startTestServer(["--runtime-config=batch/v1=true"], { dir, keepDir: true });
    try {
      const got = await ts.fetch("/apis/batch/v1/namespaces/default/jobs/kept");
      assert.equal(got.status, 200);
      assert.equal((await got.json()).metadata.name, "kept");
      const jobs = await kubectlGet(ts, "jobs");
      if (jobs) assert.match(jobs.stdout, /^kept\s/m, jobs.stderr);
    } finally {
      await ts.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--runtime-config with a resource key hides that resource only", async () => {
  const ts = await startTestServer(["--runtime-config=batch/v1/cronjobs=false"]);
  try {
    assert.equal(await status(ts, "/apis/batch/v1/cronjobs"), 404);
    assert.equal(await status(ts, "/apis/batch/v1/jobs"), 200);
    const list = await (await ts.fetch("/apis/batch/v1")).json();
    const names = list.resources.map((r: { name: string }) => r.name);
    assert.ok(names.includes("jobs") && !names.includes("cronjobs"), names.join(","));
  } finally {
    await ts.close();
  }
});

Deno.test("--runtime-config naming a version the server does not have fails at start", async () => {
  const dir = await Deno.makeTempDir({ prefix: "runtime-config-bad-" });
  try {
    const parsed = parseServerOptions([
      `--data-dir=${dir}`,
      "--secure-port=0",
      "--bind-address=127.0.0.1",
      "--runtime-config=batch/v9=false,apps/v1/widgets=true",
    ]);
    assert.ok(parsed.ok);
    await assert.rejects(
      startServer(parsed.options, { logger: new Logger({ sink: () => {} }) }),
      (err: Error) => {
        assert.match(err.message, /group version batch\/v9 that has not been registered/);
        assert.match(err.message, /resource apps\/v1\/widgets that has not been registered/);
        return true;
      },
    );
    const syntax = parseServerOptions(["--runtime-config=api/all=maybe"]);
    assert.ok(!syntax.ok && syntax.errors.includes("invalid value api/all=maybe"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
