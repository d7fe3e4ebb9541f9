/**
 * End-to-end over HTTPS: PodSecurity admission from namespace labels (enforce refuses with
 * kube's 403, warn answers `Warning` headers, workloads are only warned about, bad labels are
 * 422, a stricter enforce level warns about existing pods), and with kubectl where present.
 */
import assert from "node:assert/strict";
import { kubectlFor, runKubectl, skipWithoutKubectl } from "../support/kubectl.ts";
import { startTestServer, type TestServer } from "../support/test_server.ts";

const P = "pod-security.kubernetes.io/";

async function send(s: TestServer, method: string, path: string, body?: unknown, type?: string) {
  const res = await s.fetch(path, {
    method,
    headers: { "content-type": type ?? "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { code: res.status, body: await res.json(), warnings: res.headers.get("warning") ?? "" };
}

function namespace(name: string, labels: Record<string, string>) {
  return { metadata: { name, labels } };
}

function pod(name: string, securityContext?: Record<string, unknown>) {
  return {
    metadata: { name },
    spec: {
      containers: [{ name: "c", image: "nginx", ...(securityContext ? { securityContext } : {}) }],
    },
  };
}

const RESTRICTED_OK = {
  allowPrivilegeEscalation: false,
  runAsNonRoot: true,
  capabilities: { drop: ["ALL"] },
  seccompProfile: { type: "RuntimeDefault" },
};

Deno.test("PodSecurity enforce, warn and audit modes from namespace labels", async () => {
  const s = await startTestServer();
  try {
    let r = await send(
      s,
      "POST",
      "/api/v1/namespaces",
      namespace("locked", { [`${P}enforce`]: "restricted" }),
    );
    assert.equal(r.code, 201);
    r = await send(s, "POST", "/api/v1/namespaces/locked/pods", pod("priv", { privileged: true }));
    assert.equal(r.code, 403);
    assert.equal(r.body.reason, "Forbidden");
    assert.equal(
      r.body.message,
      `pods "priv" is forbidden: violates PodSecurity "restricted:latest": ` +
        `privileged (container "c" must not set securityContext.privileged=true), ` +
        `allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), ` +
        `unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), ` +
        `runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), ` +
        `seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`,
    );
    r = await send(s, "POST", "/api/v1/namespaces/locked/pods", pod("good", RESTRICTED_OK));
    assert.equal(r.code, 201);
    // A dry run is refused too; an update that changes no image is not evaluated.
    r = await send(s, "POST", "/api/v1/namespaces/locked/pods?dryRun=All", pod("dry"));
    assert.equal(r.code, 403);
    r = await send(
      s,
      "PATCH",
      "/api/v1/namespaces/locked/pods/good",
      { metadata: { labels: { a: "b" } } },
      "application/merge-patch+json",
    );
    assert.equal(r.code, 200);

    r = await send(
      s,
      "POST",
      "/api/v1/namespaces",
      namespace("warned", { [`${P}warn`]: "baseline", [`${P}audit`]: "restricted" }),
    );
    assert.equal(r.code, 201);
    r = await send(s, "POST", "/api/v1/namespaces/warned/pods", {
      ...pod("hn"),
      spec: { ...pod("hn").spec, hostNetwork: true },
    });
    assert.equal(r.code, 201);
    assert.match(
      r.warnings,
      /299 - "would violate PodSecurity \\"baseline:latest\\": host namespaces \(hostNetwork=true\)/,
    );
  } finally {
    await s.close();
  }
});

Deno.test("PodSecurity warns about pod templates, validates labels, warns on a stricter enforce level", async () => {
  const s = await startTestServer();
  try {
    await send(
      s,
      "POST",
      "/api/v1/namespaces",
      namespace("apps", { [`${P}enforce`]: "restricted" }),
    );
    const deployment = {
      metadata: { name: "web" },
      spec: {
        selector: { matchLabels: { app: "web" } },
        template: { metadata: { labels: { app: "web" } }, spec: pod("x").spec },
      },
    };
    let r = await send(s, "POST", "/apis/apps/v1/namespaces/apps/deployments", deployment);
    assert.equal(r.code, 201);
    assert.match(
      r.warnings,
      /299 - "would violate PodSecurity \\"restricted:latest\\": allowPrivilegeEscalation != false/,
    );

    r = await send(
      s,
      "POST",
      "/api/v1/namespaces",
      namespace("bad", { [`${P}enforce`]: "strict" }),
    );
    assert.equal(r.code, 422);
    assert.equal(
      r.body.message,
      `Namespace "bad" is invalid: metadata.labels[${P}enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted`,
    );

    await send(s, "POST", "/api/v1/namespaces", namespace("open", {}));
    assert.equal(
      (await send(s, "POST", "/api/v1/namespaces/open/pods", pod("p1", { privileged: true }))).code,
      201,
    );
    assert.equal(
      (await send(s, "POST", "/api/v1/namespaces/open/pods", pod("p2", { privileged: true }))).code,
      201,
    );
    r = await send(
      s,
      "PATCH",
      "/api/v1/namespaces/open",
      { metadata: { labels: { [`${P}enforce`]: "baseline" } } },
      "application/merge-patch+json",
    );
    assert.equal(r.code, 200);
    assert.match(
      r.warnings,
      /299 - "existing pods in namespace \\"open\\" violate the new PodSecurity enforce level \\"baseline:latest\\""/,
    );
    assert.match(r.warnings, /299 - "p1 \(and 1 other pod\): privileged"/);
  } finally {
    await s.close();
  }
});

Deno.test({
  name: "kubectl: a restricted namespace refuses a privileged pod with kube's message",
  ignore: skipWithoutKubectl("the PodSecurity kubectl test"),
  async fn() {
    const s = await startTestServer();
    try {
      const k = kubectlFor(s);
      assert.equal((await runKubectl(k, ["create", "namespace", "psa"])).code, 0);
      const label = await runKubectl(k, ["label", "namespace", "psa", `${P}enforce=restricted`]);
      assert.equal(label.code, 0, label.stderr);
      const overrides = JSON.stringify({
        spec: {
          containers: [{ name: "priv", image: "nginx", securityContext: { privileged: true } }],
        },
      });
      const run = await runKubectl(k, [
        "run",
        "priv",
        "-n",
        "psa",
        "--image=nginx",
        `--overrides=${overrides}`,
      ]);
      assert.notEqual(run.code, 0);
      assert.match(
        run.stderr,
        /Error from server \(Forbidden\): pods "priv" is forbidden: violates PodSecurity "restricted:latest": privileged \(container "priv" must not set securityContext.privileged=true\), allowPrivilegeEscalation != false/,
      );
      const warned = await runKubectl(k, ["label", "namespace", "default", `${P}warn=baseline`]);
      assert.equal(warned.code, 0);
      const hostNet = JSON.stringify({ spec: { hostNetwork: true } });
      const ok = await runKubectl(k, ["run", "hn", "--image=nginx", `--overrides=${hostNet}`]);
      assert.equal(ok.code, 0, ok.stderr);
      assert.match(
        ok.stderr,
        /Warning: would violate PodSecurity "baseline:latest": host namespaces \(hostNetwork=true\)/,
      );
      const enforce = await runKubectl(k, [
        "label",
        "namespace",
        "default",
        `${P}enforce=baseline`,
      ]);
      assert.equal(enforce.code, 0, enforce.stderr);
      assert.match(
        enforce.stderr,
        /Warning: existing pods in namespace "default" violate the new PodSecurity enforce level "baseline:latest"\nWarning: hn: host namespaces\n/,
      );
    } finally {
      await s.close();
    }
  },
});
