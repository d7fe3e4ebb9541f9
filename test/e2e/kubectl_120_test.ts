/**
 * End-to-end with kubectl 1.20 (Debian's kubernetes-client), the clients that read the OpenAPI
 * v2 document in its Protobuf form: client-side validation of `create -f` and `apply -f`,
 * `explain`, and `get` as a Table. Skips where that kubectl cannot be had.
 */
import assert from "node:assert/strict";
import { kubectlFor, kubectlOk as ok, runKubectl } from "../support/kubectl.ts";
import { findKubectl120 } from "../support/kubectl_120.ts";
import { startTestServer, type TestServer } from "../support/test_server.ts";

const KUBECTL_120 = await findKubectl120("the kubectl 1.20 tests");

function deployment(
  name: string,
  opts: { replicas?: string; image?: string; extra?: string } = {},
) {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: ${opts.replicas ?? "1"}
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers:
      - name: web
        image: ${opts.image ?? "nginx:1.27"}
${opts.extra ?? ""}`;
}

async function withKubectl120(
  fn: (
    k: (args: string[], stdin?: string) => ReturnType<typeof runKubectl>,
    s: TestServer,
  ) => Promise<void>,
): Promise<void> {
  const s = await startTestServer();
  try {
    const target = { ...kubectlFor(s), bin: KUBECTL_120 };
    await fn((args, stdin) => runKubectl(target, args, stdin), s);
  } finally {
    await s.close();
  }
}

Deno.test({
  name: "kubectl 1.20 create -f and apply -f validate against /openapi/v2 and succeed",
  ignore: KUBECTL_120 === undefined,
  async fn() {
    await withKubectl120(async (k) => {
      assert.match(
        ok(await k(["create", "-f", "-"], deployment("web"))),
        /deployment.apps\/web created/,
      );
      assert.match(
        ok(await k(["apply", "-f", "-"], deployment("app"))),
        /deployment.apps\/app created/,
      );
      const changed = deployment("app", { replicas: "3", image: "nginx:1.28" });
      assert.match(ok(await k(["apply", "-f", "-"], changed)), /deployment.apps\/app configured/);
      assert.match(ok(await k(["apply", "-f", "-"], changed)), /deployment.apps\/app unchanged/);
      const got = JSON.parse(ok(await k(["get", "deployment", "app", "-o", "json"])));
      assert.equal(got.spec.replicas, 3);
      assert.deepEqual(got.spec.template.spec.containers.map((c: { image: string }) => c.image), [
        "nginx:1.28",
      ]);
      assert.ok(got.metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"]);
    });
  },
});

Deno.test({
  name: "kubectl 1.20 rejects unknown fields, wrong types and missing fields before sending",
  ignore: KUBECTL_120 === undefined,
  async fn() {
    await withKubectl120(async (k) => {
      const unknown = await k(
        ["create", "-f", "-"],
        deployment("bad", { extra: "        foo: bar\n" }),
      );
      assert.notEqual(unknown.code, 0);
      assert.match(
        unknown.stderr,
        /error validating "STDIN": error validating data: ValidationError\(Deployment\.spec\.template\.spec\.containers\[0\]\): unknown field "foo" in io\.k8s\.api\.core\.v1\.Container; if you choose to ignore these errors, turn validation off with --validate=false/,
      );
      const applied = await k(
        ["apply", "-f", "-"],
        deployment("bad", { extra: "        foo: bar\n" }),
      );
      assert.notEqual(applied.code, 0);
      assert.match(applied.stderr, /unknown field "foo" in io\.k8s\.api\.core\.v1\.Container/);
      const typed = await k(["create", "-f", "-"], deployment("bad", { replicas: '"two"' }));
      assert.notEqual(typed.code, 0);
      assert.match(
        typed.stderr,
        /invalid type for io\.k8s\.api\.apps\.v1\.DeploymentSpec\.replicas: got "string", expected "integer"/,
      );
      const missing = await k(
        ["create", "-f", "-"],
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: bad}\nspec: {replicas: 1}\n",
      );
      assert.notEqual(missing.code, 0);
      assert.match(
        missing.stderr,
        /missing required field "selector" in io\.k8s\.api\.apps\.v1\.DeploymentSpec/,
      );
      const none = JSON.parse(ok(await k(["get", "deployments", "-o", "json"])));
      assert.deepEqual(none.items, []);
      assert.match(
        ok(
          await k(
            ["create", "--validate=false", "-f", "-"],
            deployment("lax", { extra: "        foo: bar\n" }),
          ),
        ),
        /deployment.apps\/lax created/,
      );
    });
  },
});

Deno.test({
  name: "kubectl 1.20 explain deployment.spec.strategy reads the Protobuf document",
  ignore: KUBECTL_120 === undefined,
  async fn() {
    await withKubectl120(async (k) => {
      const out = ok(await k(["explain", "deployment.spec.strategy"]));
      assert.match(
        out,
        /^KIND:\s+Deployment\nVERSION:\s+apps\/v1\n\nRESOURCE: strategy <Object>\n/,
      );
      assert.match(
        out,
        /DESCRIPTION:\n\s+The deployment strategy to use to replace existing pods with new ones\./,
      );
      assert.match(out, /FIELDS:\n\s+rollingUpdate\t<Object>\n/);
      assert.match(out, /\n\s+type\t<string>\n\s+Type of deployment\./);
      const pods = ok(await k(["explain", "pods.spec.containers.name"]));
      assert.match(pods, /^KIND:\s+Pod\nVERSION:\s+v1\n\nFIELD:\s+name <string>\n/);
    });
  },
});

Deno.test({
  name: "kubectl 1.20 get pods prints the server's Table",
  ignore: KUBECTL_120 === undefined,
  async fn() {
    await withKubectl120(async (k) => {
      assert.match(ok(await k(["get", "pods"])), /^$/);
      const pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p1}\n" +
        "spec:\n  containers:\n  - {name: c, image: busybox}\n";
      assert.match(ok(await k(["create", "-f", "-"], pod)), /pod\/p1 created/);
      const table = ok(await k(["get", "pods"]));
      assert.match(table, /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\n/);
      assert.match(table, /\np1\s+0\/1\s+Pending\s+0\s+\S+\n/);
      const wide = ok(await k(["get", "pods", "-o", "wide"]));
      assert.match(
        wide,
        /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES\n/,
      );
    });
  },
});

Deno.test({
  name: "kubectl 1.20 apply merges containers by name with a strategic merge patch",
  ignore: KUBECTL_120 === undefined,
  async fn() {
    await withKubectl120(async (k) => {
      const two = (imageB: string) =>
        deployment("pair", { extra: `      - name: b\n        image: ${imageB}\n` });
      ok(await k(["apply", "-f", "-"], two("busybox:1")));
      const patched = await k(["apply", "-f", "-", "-v=8"], two("busybox:2"));
      ok(patched);
      assert.match(patched.stderr, /Request Body: .*"\$setElementOrder\/containers"/);
      assert.match(patched.stderr, /Content-Type: application\/strategic-merge-patch\+json/);
      const got = JSON.parse(ok(await k(["get", "deployment", "pair", "-o", "json"])));
      const images = got.spec.template.spec.containers.map((c: { name: string; image: string }) =>
        `${c.name}=${c.image}`
      );
      assert.deepEqual(images, ["web=nginx:1.27", "b=busybox:2"]);
      ok(await k(["apply", "-f", "-"], deployment("pair")));
      const one = JSON.parse(ok(await k(["get", "deployment", "pair", "-o", "json"])));
      assert.deepEqual(one.spec.template.spec.containers.map((c: { name: string }) => c.name), [
        "web",
      ]);
    });
  },
});
