/**
 * End-to-end over HTTPS for MutatingAdmissionWebhook and ValidatingAdmissionWebhook: a real
 * webhook server with its own CA, reached by URL and through a Service (without selector, with
 * an EndpointSlice pointing at it); patches applied, denials, timeouts under both failure
 * policies, dry-run refusal, reinvocation, match conditions, selectors, configuration changes.
 */
import assert from "node:assert/strict";
import { KUBECTL, kubectlFor, kubectlOk, runKubectl } from "../support/kubectl.ts";
import { startTestServer } from "../support/test_server.ts";
import {
  call,
  configMap,
  createNamespace,
  type Ctx,
  hook,
  HookServer,
  type Json,
  MWC,
  patch,
  VWC,
  waitFor,
} from "./_admission_webhook_helpers.ts";

/** Step: a mutating webhook's patch is applied and visible. */
async function mutatingPatch({ ts, hooks, url, cms }: Ctx): Promise<void> {
  await createNamespace(ts, "mut");
  hooks.answers.set(
    "/add-label",
    patch([{ op: "add", path: "/metadata/labels/mutated", value: "yes" }]),
  );
  const cfg = {
    metadata: { name: "add-label" },
    webhooks: [hook("add-label.example.com", url("/add-label"), {
      namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "mut" } },
    })],
  };
  assert.equal((await call(ts, "POST", MWC, cfg)).status, 201);
  const r = await call(ts, "POST", cms("mut"), configMap("one", { a: "b" }));
  assert.equal(r.status, 201, JSON.stringify(r.body));
  assert.equal((r.body.metadata as Json & { labels: Json }).labels.mutated, "yes");
  const got = await call(ts, "GET", `${cms("mut")}/one`);
  assert.equal((got.body.metadata as { labels: Json }).labels.mutated, "yes");
  const [review] = hooks.calls("/add-label");
  const req = review.request;
  assert.deepEqual(req.kind, { group: "", version: "v1", kind: "ConfigMap" });
  assert.deepEqual(req.resource, { group: "", version: "v1", resource: "configmaps" });
  assert.deepEqual(req.requestKind, req.kind);
  assert.equal(req.operation, "CREATE");
  assert.equal(req.namespace, "mut");
  assert.equal(req.name, "one");
  assert.equal(req.oldObject, null);
  assert.equal(req.dryRun, false);
  assert.equal((req.options as Json).kind, "CreateOptions");
  assert.equal((req.userInfo as Json).username !== undefined, true);
  assert.equal(hooks.seen.find((s) => s.path === "/add-label")?.query, "?timeout=10s");
  hooks.answers.set("/add-label", patch([{ op: "add", path: "/data/bad key", value: "x" }]));
  const invalid = await call(ts, "POST", cms("mut"), configMap("two"));
  assert.equal(invalid.status, 422, "the patched object is validated");
  assert.equal((await call(ts, "DELETE", `${MWC}/add-label`)).status, 200);
}

/** Step: a validating webhook's denial carries its message and code. */
async function validatingDenial({ ts, hooks, url, cms }: Ctx): Promise<void> {
  await createNamespace(ts, "val");
  hooks.answers.set("/deny", (r) => ({
    allowed: false,
    status: { code: 403, message: "no thanks" },
    warnings: [`careful with ${r.request.name}`],
  }));
  const cfg = {
    metadata: { name: "deny" },
    webhooks: [hook("deny.example.com", url("/deny"), {
      objectSelector: { matchLabels: { deny: "yes" } },
    })],
  };
  assert.equal((await call(ts, "POST", VWC, cfg)).status, 201);
  const r = await call(ts, "POST", cms("val"), configMap("denied", { deny: "yes" }));
  assert.equal(r.status, 403);
  assert.equal(
    r.body.message,
    'admission webhook "deny.example.com" denied the request: no thanks',
  );
  const ok = await call(ts, "POST", cms("val"), configMap("allowed", { deny: "no" }));
  assert.equal(ok.status, 201, "the object selector leaves it out");
  assert.equal(hooks.calls("/deny").length, 1);
  hooks.answers.set("/deny", (r) => ({ warnings: [`careful with ${r.request.name}`] }));
  const warned = await call(ts, "POST", cms("val"), configMap("warned", { deny: "yes" }));
  assert.equal(warned.status, 201);
  assert.match(warned.headers.get("warning") ?? "", /careful with warned/);
  assert.equal((await call(ts, "DELETE", `${VWC}/deny`)).status, 200);
  const after = await call(ts, "POST", cms("val"), configMap("later", { deny: "yes" }));
  assert.equal(after.status, 201, "a deleted configuration no longer applies");
}

/** Step: a timeout fails the request with Fail and is ignored with Ignore. */
async function timeouts({ ts, hooks, port, url, cms }: Ctx): Promise<void> {
  await createNamespace(ts, "slow");
  hooks.answers.set("/slow", async () => {
    await new Promise((r) => setTimeout(r, 2500));
    return {};
  });
  const selector = {
    namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "slow" } },
  };
  const cfg = {
    metadata: { name: "slow" },
    webhooks: [hook("slow.example.com", url("/slow"), { timeoutSeconds: 1, ...selector })],
  };
  assert.equal((await call(ts, "POST", VWC, cfg)).status, 201);
  const r = await call(ts, "POST", cms("slow"), configMap("a"));
  assert.equal(r.status, 500);
  assert.equal(
    r.body.message,
    `Internal error occurred: failed calling webhook "slow.example.com": failed to call webhook: Post "https://127.0.0.1:${port}/slow?timeout=1s": context deadline exceeded`,
  );
  const current = await call(ts, "GET", `${VWC}/slow`);
  const updated = structuredClone(current.body) as Json & { webhooks: Json[] };
  updated.webhooks[0].failurePolicy = "Ignore";
  assert.equal((await call(ts, "PUT", `${VWC}/slow`, updated)).status, 200);
  const ignored = await call(ts, "POST", cms("slow"), configMap("b"));
  assert.equal(ignored.status, 201, JSON.stringify(ignored.body));
  assert.equal((await call(ts, "DELETE", `${VWC}/slow`)).status, 200);
}

/** Step: a dry run matched by a webhook with side effects is refused. */
async function dryRun({ ts, hooks, url, cms }: Ctx): Promise<void> {
  await createNamespace(ts, "dry");
  const selector = {
    namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "dry" } },
  };
  const cfg = {
    metadata: { name: "side-effects" },
    webhooks: [hook("none.example.com", url("/record"), selector)],
  };
  assert.equal((await call(ts, "POST", VWC, cfg)).status, 201);
  const r0 = await call(ts, "POST", `${cms("dry")}?dryRun=All`, configMap("d"));
  assert.equal(r0.status, 201, "None allows dry runs");
  assert.equal(hooks.calls("/record").at(-1)?.request.dryRun, true);
  assert.equal((await call(ts, "DELETE", `${VWC}/side-effects`)).status, 200);
  // Side effects Some are only left from configurations stored before v1: store one as is.
  const stored = {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingWebhookConfiguration",
    metadata: { name: "some-side-effects", uid: crypto.randomUUID() },
    webhooks: [{
      ...hook("some.example.com", url("/record"), selector),
      sideEffects: "Some",
      failurePolicy: "Fail",
      matchPolicy: "Equivalent",
      timeoutSeconds: 10,
      objectSelector: {},
    }],
  };
  await ts.server.storage.create(
    "/registry/admissionregistration.k8s.io/validatingwebhookconfigurations/some-side-effects",
    JSON.stringify(stored),
  );
  const refused = await waitFor(
    () => call(ts, "POST", `${cms("dry")}?dryRun=All`, configMap("e")),
    (r) => r.status === 400,
  );
  assert.equal(
    refused.body.message,
    'admission webhook "some.example.com" does not support dry run',
  );
  assert.equal((await call(ts, "POST", cms("dry"), configMap("e"))).status, 201);
  assert.equal((await call(ts, "DELETE", `${VWC}/some-side-effects`)).status, 200);
}

/** Step: reinvocation: an IfNeeded webhook runs again after a later change. */
async function reinvocation({ ts, hooks, url, cms }: Ctx): Promise<void> {
  await createNamespace(ts, "reinv");
  hooks.answers.set("/first", (r) => {
    const labels = ((r.request.object as Json).metadata as Json).labels as Json ?? {};
    const saw = labels.second === "done" ? "yes" : "no";
    return patch([{ op: "add", path: "/metadata/annotations", value: { "saw-second": saw } }]);
  });
  hooks.answers.set("/second", (r) => {
    const labels = ((r.request.object as Json).metadata as Json).labels as Json ?? {};
    return labels.second
      ? {}
      : patch([{ op: "add", path: "/metadata/labels/second", value: "done" }]);
  });
  const ns = { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "reinv" } } };
  const cfg = {
    metadata: { name: "reinvoke" },
    webhooks: [
      hook("first.example.com", url("/first"), { reinvocationPolicy: "IfNeeded", ...ns }),
      hook("second.example.com", url("/second"), ns),
    ],
  };
  assert.equal((await call(ts, "POST", MWC, cfg)).status, 201);
  const r = await call(ts, "POST", cms("reinv"), configMap("x", { keep: "1" }));
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const meta = r.body.metadata as { labels: Json; annotations: Json };
  assert.equal(meta.labels.second, "done");
  assert.equal(meta.annotations["saw-second"], "yes");
  assert.equal(hooks.calls("/first").length, 2);
  assert.equal(hooks.calls("/second").length, 1);
  assert.equal((await call(ts, "DELETE", `${MWC}/reinvoke`)).status, 200);
}

/** Step: match conditions skip a webhook; namespace selectors pick namespaces. */
async function matchConditions({ ts, hooks, url, cms }: Ctx): Promise<void> {
  await createNamespace(ts, "team-a", { team: "a" });
  await createNamespace(ts, "team-b", { team: "b" });
  hooks.answers.set("/cond", { allowed: false, status: { message: "matched" } });
  const cfg = {
    metadata: { name: "cond" },
    webhooks: [hook("cond.example.com", url("/cond"), {
      namespaceSelector: { matchLabels: { team: "a" } },
      matchConditions: [{
        name: "not-exempt",
        expression: "!object.metadata.name.startsWith('exempt')",
      }],
    })],
  };
  assert.equal((await call(ts, "POST", VWC, cfg)).status, 201);
  const denied = await call(ts, "POST", cms("team-a"), configMap("plain"));
  assert.equal(denied.status, 400);
  assert.equal(
    denied.body.message,
    'admission webhook "cond.example.com" denied the request: matched',
  );
  assert.equal((await call(ts, "POST", cms("team-a"), configMap("exempt-1"))).status, 201);
  assert.equal((await call(ts, "POST", cms("team-b"), configMap("plain"))).status, 201);
  // The authorizer variable asks the server's authorizers (the admin may create pods).
  const authz = structuredClone((await call(ts, "GET", `${VWC}/cond`)).body) as Json & {
    webhooks: Json[];
  };
  const check = "authorizer.group('').resource('pods').namespace('team-a').check('create')";
  authz.webhooks[0].matchConditions = [{ name: "authz", expression: `!${check}.allowed()` }];
  assert.equal((await call(ts, "PUT", `${VWC}/cond`, authz)).status, 200);
  assert.equal((await call(ts, "POST", cms("team-a"), configMap("authz-1"))).status, 201);
  authz.webhooks[0].matchConditions = [{ name: "authz", expression: `${check}.allowed()` }];
  delete (authz.metadata as Json).resourceVersion;
  assert.equal((await call(ts, "PUT", `${VWC}/cond`, authz)).status, 200);
  assert.equal((await call(ts, "POST", cms("team-a"), configMap("authz-2"))).status, 400);
  // A condition that errs refuses the request under Fail and skips the webhook under Ignore.
  const current = structuredClone((await call(ts, "GET", `${VWC}/cond`)).body) as Json & {
    webhooks: Json[];
  };
  current.webhooks[0].matchConditions = [{
    name: "errs",
    expression: "object.data.missing == 'x'",
  }];
  assert.equal((await call(ts, "PUT", `${VWC}/cond`, current)).status, 200);
  const refused = await call(ts, "POST", cms("team-a"), configMap("errs"));
  assert.equal(refused.status, 403);
  assert.match(String(refused.body.message), /^configmaps "errs" is forbidden: expression '/);
  current.webhooks[0].failurePolicy = "Ignore";
  delete (current.metadata as Json).resourceVersion;
  assert.equal((await call(ts, "PUT", `${VWC}/cond`, current)).status, 200);
  assert.equal((await call(ts, "POST", cms("team-a"), configMap("errs"))).status, 201);
  assert.equal((await call(ts, "DELETE", `${VWC}/cond`)).status, 200);
}

/** Step: a webhook is reached through a Service and its EndpointSlice. */
async function viaService({ ts, hooks, port, cms }: Ctx): Promise<void> {
  // Endpoint addresses may not be loopback ones: the webhook server listens on every
  // address, and the slice names this machine's first non-loopback IPv4 address.
  const address = Deno.networkInterfaces().find((i) =>
    i.family === "IPv4" && !i.address.startsWith("127.")
  )?.address;
  if (!address) {
    console.log("skipped: this machine has no non-loopback IPv4 address");
    return;
  }
  await createNamespace(ts, "webhooks");
  await createNamespace(ts, "svc");
  const svc = {
    metadata: { name: "hooks" },
    spec: { ports: [{ name: "https", port: 443, targetPort: port }] },
  };
  assert.equal(
    (await call(ts, "POST", "/api/v1/namespaces/webhooks/services", svc)).status,
    201,
  );
  const slice = {
    metadata: { name: "hooks-1", labels: { "kubernetes.io/service-name": "hooks" } },
    addressType: "IPv4",
    ports: [{ name: "https", port, protocol: "TCP" }],
    endpoints: [{ addresses: [address], conditions: { ready: true } }],
  };
  const made = await call(
    ts,
    "POST",
    "/apis/discovery.k8s.io/v1/namespaces/webhooks/endpointslices",
    slice,
  );
  assert.equal(made.status, 201, JSON.stringify(made.body));
  hooks.answers.set(
    "/via-service",
    patch([{ op: "add", path: "/data/via", value: "service" }]),
  );
  const cfg = {
    metadata: { name: "via-service" },
    webhooks: [hook("svc.example.com", {
      service: { namespace: "webhooks", name: "hooks", path: "/via-service" },
      caBundle: hooks.caBundle,
    }, { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "svc" } } })],
  };
  assert.equal((await call(ts, "POST", MWC, cfg)).status, 201);
  const r = await call(ts, "POST", cms("svc"), configMap("s"));
  assert.equal(r.status, 201, JSON.stringify(r.body));
  assert.equal((r.body.data as Json).via, "service");
  assert.equal((await call(ts, "DELETE", `${MWC}/via-service`)).status, 200);
}

/** Step: matchPolicy Equivalent calls a webhook in the version its rule names. */
async function equivalent({ ts, hooks, url }: Ctx): Promise<void> {
  await createNamespace(ts, "equiv");
  hooks.answers.set("/hpa-v1", (r) => {
    const obj = r.request.object as Json;
    return obj.apiVersion === "autoscaling/v1"
      ? patch([{ op: "add", path: "/spec/targetCPUUtilizationPercentage", value: 70 }])
      : { allowed: false, status: { message: `got ${obj.apiVersion}` } };
  });
  const v1Rule = {
    operations: ["CREATE"],
    apiGroups: ["autoscaling"],
    apiVersions: ["v1"],
    resources: ["horizontalpodautoscalers"],
  };
  const ns = {
    namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "equiv" } },
  };
  const cfg = {
    metadata: { name: "hpa-v1" },
    webhooks: [hook("hpa.example.com", url("/hpa-v1"), { rules: [v1Rule], ...ns })],
  };
  assert.equal((await call(ts, "POST", MWC, cfg)).status, 201);
  const hpa = (name: string) => ({
    metadata: { name },
    spec: {
      scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
      minReplicas: 1,
      maxReplicas: 3,
      metrics: [{
        type: "Resource",
        resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50 } },
      }],
    },
  });
  const v2 = "/apis/autoscaling/v2/namespaces/equiv/horizontalpodautoscalers";
  const r = await call(ts, "POST", v2, hpa("web"));
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const metrics = (r.body.spec as { metrics: { resource: { target: Json } }[] }).metrics;
  assert.equal(metrics[0].resource.target.averageUtilization, 70);
  const req = hooks.calls("/hpa-v1").at(-1)!.request;
  assert.deepEqual(req.kind, {
    group: "autoscaling",
    version: "v1",
    kind: "HorizontalPodAutoscaler",
  });
  assert.deepEqual(req.requestKind, {
    group: "autoscaling",
    version: "v2",
    kind: "HorizontalPodAutoscaler",
  });
  const exact = structuredClone((await call(ts, "GET", `${MWC}/hpa-v1`)).body) as Json & {
    webhooks: Json[];
  };
  exact.webhooks[0].matchPolicy = "Exact";
  assert.equal((await call(ts, "PUT", `${MWC}/hpa-v1`, exact)).status, 200);
  const before = hooks.calls("/hpa-v1").length;
  assert.equal((await call(ts, "POST", v2, hpa("exact"))).status, 201);
  assert.equal(hooks.calls("/hpa-v1").length, before, "Exact leaves other versions out");
  assert.equal((await call(ts, "DELETE", `${MWC}/hpa-v1`)).status, 200);
}

/** Step: the webhook metrics count calls and rejections. */
async function metrics({ ts }: Ctx): Promise<void> {
  const res = await ts.fetch("/metrics");
  const text = await res.text();
  const line = (prefix: string, labels: Record<string, string>) =>
    text.split("\n").find((l) =>
      l.startsWith(`${prefix}{`) &&
      Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`))
    ) ?? "";
  const denied = { name: "deny.example.com", type: "validating", operation: "CREATE" };
  const total = "apiserver_admission_webhook_request_total";
  assert.match(line(total, { ...denied, code: "403", rejected: "true" }), / 1$/);
  const rejections = line("apiserver_admission_webhook_rejection_count", {
    ...denied,
    error_type: "no_error",
    rejection_code: "403",
  });
  assert.match(rejections, / 1$/);
  const added = line("apiserver_admission_webhook_admission_duration_seconds_count", {
    name: "add-label.example.com",
    type: "admit",
    rejected: "false",
  });
  assert.match(added, / 2$/);
  const failOpen = line("apiserver_admission_webhook_fail_open_count", {
    name: "slow.example.com",
  });
  assert.match(failOpen, / 1$/);
}

/** Step: kubectl shows a webhook's denial and writes what a mutating webhook patched. */
async function withKubectl({ ts, hooks, url }: Ctx): Promise<void> {
  if (KUBECTL === undefined) {
    console.warn("kubectl is not on PATH: skipping the kubectl step");
    return;
  }
  const k = kubectlFor(ts);
  kubectlOk(await runKubectl(k, ["create", "namespace", "kubectl-hooks"]));
  hooks.answers.set(
    "/kubectl-deny",
    (r) =>
      ((r.request.object as Json).data as Json)?.deny
        ? { allowed: false, status: { code: 403, message: "kubectl says no" } }
        : {},
  );
  hooks.answers.set(
    "/kubectl-mutate",
    patch([{ op: "add", path: "/metadata/labels", value: { mutated: "by-webhook" } }]),
  );
  const ns = {
    namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "kubectl-hooks" } },
  };
  const docs = [
    { kind: "ValidatingWebhookConfiguration", name: "kubectl-deny", path: "/kubectl-deny" },
    { kind: "MutatingWebhookConfiguration", name: "kubectl-mutate", path: "/kubectl-mutate" },
  ].map((d) => ({
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: d.kind,
    metadata: { name: d.name },
    webhooks: [hook(`${d.name}.example.com`, url(d.path), ns)],
  }));
  const list = { apiVersion: "v1", kind: "List", items: docs };
  kubectlOk(await runKubectl(k, ["apply", "-f", "-"], JSON.stringify(list)));
  const denied = await runKubectl(k, [
    "create",
    "configmap",
    "no",
    "-n",
    "kubectl-hooks",
    "--from-literal=deny=1",
  ]);
  assert.notEqual(denied.code, 0);
  assert.match(
    denied.stderr,
    /admission webhook "kubectl-deny.example.com" denied the request: kubectl says no/,
  );
  const created = kubectlOk(
    await runKubectl(k, [
      "create",
      "configmap",
      "yes",
      "-n",
      "kubectl-hooks",
      "--from-literal=a=b",
      "-o",
      "jsonpath={.metadata.labels.mutated}",
    ]),
  );
  assert.equal(created, "by-webhook");
  kubectlOk(
    await runKubectl(k, [
      "delete",
      "validatingwebhookconfiguration/kubectl-deny",
      "mutatingwebhookconfiguration/kubectl-mutate",
    ]),
  );
}

Deno.test("admission webhooks: mutate, deny, time out, refuse dry runs, reinvoke and match", async (t) => {
  const hooks = new HookServer();
  const port = await hooks.start();
  const ts = await startTestServer();
  const url = (path: string) => ({
    url: `https://127.0.0.1:${port}${path}`,
    caBundle: hooks.caBundle,
  });
  const cms = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;
  const c: Ctx = { ts, hooks, port, url, cms };
  try {
    await t.step("a mutating webhook's patch is applied and visible", () => mutatingPatch(c));
    await t.step(
      "a validating webhook's denial carries its message and code",
      () => validatingDenial(c),
    );
    await t.step(
      "a timeout fails the request with Fail and is ignored with Ignore",
      () => timeouts(c),
    );
    await t.step("a dry run matched by a webhook with side effects is refused", () => dryRun(c));
    await t.step(
      "reinvocation: an IfNeeded webhook runs again after a later change",
      () => reinvocation(c),
    );
    await t.step(
      "match conditions skip a webhook; namespace selectors pick namespaces",
      () => matchConditions(c),
    );
    await t.step(
      "a webhook is reached through a Service and its EndpointSlice",
      () => viaService(c),
    );
    await t.step(
      "matchPolicy Equivalent calls a webhook in the version its rule names",
      () => equivalent(c),
    );
    await t.step("the webhook metrics count calls and rejections", () => metrics(c));
    await t.step("kubectl shows denials and mutations", () => withKubectl(c));
  } finally {
    await ts.close();
    await hooks.stop();
  }
});
