/**
 * End-to-end with the real kubectl and nothing but the generated admin.kubeconfig: the
 * commands of the foundation's acceptance list. Skips (with a message) where kubectl is
 * not installed.
 */
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import { call, poll } from "./foundation_helpers.ts";

function findKubectl(): string | undefined {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    if (!dir) continue;
    try {
      if (Deno.statSync(`${dir}/kubectl`).isFile) return `${dir}/kubectl`;
    } catch {
      // not here
    }
  }
  return undefined;
}

const KUBECTL = findKubectl();
if (!KUBECTL) console.warn("kubectl is not on PATH: skipping the kubectl foundation tests");

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function kubectl(t: TestServer, home: string, args: string[], stdin?: string): Promise<Run> {
  const cmd = new Deno.Command(KUBECTL!, {
    args,
    env: { KUBECONFIG: t.server.kubeconfigPath, HOME: home },
    clearEnv: true,
    stdin: stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  });
  const child = cmd.spawn();
  if (stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(stdin));
    await w.close();
  }
  const out = await child.output();
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
}

function ok(r: Run): string {
  assert.equal(r.code, 0, `kubectl failed (${r.code}): ${r.stderr}${r.stdout}`);
  return r.stdout;
}

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
  ignore: !KUBECTL,
  async fn(t) {
    const s = await startTestServer();
    const home = await Deno.makeTempDir({ prefix: "kubectl-home-" });
    try {
      await t.step("kubectl get ns", async () => {
        const out = ok(await kubectl(s, home, ["get", "ns"]));
        for (const ns of ["default", "kube-system", "kube-public", "kube-node-lease"]) {
          assert.match(out, new RegExp(`^${ns}\\s`, "m"));
        }
      });
      await t.step("kubectl get --raw '/readyz?verbose'", async () => {
        const out = ok(await kubectl(s, home, ["get", "--raw", "/readyz?verbose"]));
        assert.match(out, /^\[\+\]storage ok$/m);
        assert.match(out, /readyz check passed/);
      });
      await t.step("kubectl api-resources", async () => {
        const out = ok(await kubectl(s, home, ["api-resources"]));
        assert.match(out, /^configmaps\s+cm\s+v1\s+true\s+ConfigMap$/m);
        assert.match(out, /^namespaces\s+ns\s+v1\s+false\s+Namespace$/m);
        assert.match(out, /^leases\s+coordination\.k8s\.io\/v1\s+true\s+Lease$/m);
      });
      await t.step("kubectl create -f (namespace and configmaps) --validate=false", async () => {
        const out = ok(await kubectl(s, home, ["create", "-f", "-", "--validate=false"], MANIFEST));
        assert.match(out, /namespace\/kubectl-demo created/);
        assert.match(out, /configmap\/five created/);
      });
      await t.step("kubectl get cm -A", async () => {
        const out = ok(await kubectl(s, home, ["get", "cm", "-A"]));
        assert.match(out, /^kubectl-demo\s+one\s+1\s/m);
        assert.match(out, /^kubectl-demo\s+two\s+0\s/m);
      });
      await t.step("kubectl get cm -n <ns> --chunk-size=2", async () => {
        const r = await kubectl(s, home, [
          "get",
          "cm",
          "-n",
          "kubectl-demo",
          "--chunk-size=2",
          "-v=6",
        ]);
        const out = ok(r);
        const names = out.trim().split("\n").slice(1).map((l) => l.split(/\s+/)[0]);
        assert.deepEqual(names.sort(), ["five", "four", "one", "three", "two"]);
        // Three pages: two continue requests.
        assert.equal(r.stderr.match(/configmaps\?continue=/g)?.length, 2, r.stderr);
        assert.match(r.stderr, /limit=2/);
      });
      await t.step("kubectl delete ns --wait=false, then everything goes", async () => {
        const out = ok(await kubectl(s, home, ["delete", "ns", "kubectl-demo", "--wait=false"]));
        assert.match(out, /namespace "kubectl-demo" deleted/);
        await poll("namespace kubectl-demo to disappear", async () => {
          return (await call(s, "GET", "/api/v1/namespaces/kubectl-demo")).status === 404;
        }, 60_000);
        const cms = ok(await kubectl(s, home, ["get", "cm", "-A", "-o", "name"]));
        assert.equal(cms.trim(), "");
        const nsList = ok(await kubectl(s, home, ["get", "ns", "-o", "name"]));
        assert.doesNotMatch(nsList, /kubectl-demo/);
      });
    } finally {
      await s.close();
      await Deno.remove(home, { recursive: true }).catch(() => {});
    }
  },
});
