/**
 * ValidatingAdmissionPolicy benchmark: ConfigMap creates per second with 0, 1 and 10 policies
 * (each matching ConfigMap creates, with a variable and two validations that pass, bound with
 * Deny). Part 1 calls the store directly (no HTTP), beside the same store without any admission
 * plugin; part 2 creates over HTTPS through the whole server, beside the server with no policy;
 * part 3 creates over HTTPS with one validating webhook (a local HTTPS server that allows every
 * request) beside the same server before the webhook is configured.
 * All in one run; figures only, no assertions.
 *
 * Usage: ./scripts/deno run -A scripts/bench/admission_policies.ts [--seconds=3] [--concurrency=8]
 *
 * @module
 */
import { parseArgs } from "node:util";
import { validatingAdmissionPolicy } from "../../apiserver/admission/policy/validating_admission_policy.ts";
import { AlwaysAllowAuthorizer } from "../../apiserver/auth/authz/static_authorizers.ts";
import { parseServerOptions } from "../../apiserver/options.ts";
import { BUILTIN_KINDS } from "../../apiserver/registry/builtin_kinds.ts";
import { ResourceRegistry } from "../../apiserver/registry/resource_registry.ts";
import { startServer } from "../../apiserver/server.ts";
import { LibsqlStorage } from "../../apiserver/storage/libsql/libsql_storage.ts";
import { ChangeFeed } from "../../apiserver/watch/change_feed.ts";
import { Logger } from "../../shared/log/mod.ts";
import { createCA, issueCertificate } from "../../shared/pki/issue_certificate.ts";

const { values } = parseArgs({
  options: { seconds: { type: "string" }, concurrency: { type: "string" } },
});
const SECONDS = Number(values.seconds ?? "3");
const CONCURRENCY = Number(values.concurrency ?? "8");
const GROUP = "admissionregistration.k8s.io";

function policy(i: number) {
  return {
    metadata: { name: `p-${i}` },
    spec: {
      matchConstraints: {
        resourceRules: [{
          apiGroups: [""],
          apiVersions: ["v1"],
          operations: ["CREATE"],
          resources: ["configmaps"],
        }],
      },
      variables: [{ name: "keys", expression: "has(object.data) ? size(object.data) : 0" }],
      validations: [
        { expression: "variables.keys < 100", messageExpression: "'too many keys'" },
        { expression: "object.metadata.name.size() < 200", message: "name too long" },
      ],
    },
  };
}

function binding(i: number) {
  return {
    metadata: { name: `b-${i}` },
    spec: { policyName: `p-${i}`, validationActions: ["Deny"] },
  };
}

const body = (name: string) => ({ metadata: { name }, data: { a: "1", b: "2" } });

async function run(fn: (n: number) => Promise<void>): Promise<number> {
  let count = 0, seq = 0;
  const end = performance.now() + SECONDS * 1000;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (performance.now() < end) {
      await fn(seq++);
      count++;
    }
  }));
  return count / SECONDS;
}

/** Part 1: store creates with the plugin and `policies` policies, or with no admission at all. */
async function storeCreates(policies: number | "none"): Promise<number> {
  const dir = await Deno.makeTempDir({ prefix: "bench-vap-" });
  const storage = await LibsqlStorage.open({ url: `file:${dir}/state.db` });
  const feed = new ChangeFeed({ storage, remote: false, historyWindowMs: 60_000 });
  const authorizer = new AlwaysAllowAuthorizer();
  const registry = new ResourceRegistry({
    storage,
    admissionPlugins: policies === "none"
      ? undefined
      : (r) => [validatingAdmissionPolicy({ registry: r, feed, authorizer: () => authorizer })],
  });
  try {
    for (const k of BUILTIN_KINDS) registry.add(k);
    await feed.start();
    const n = policies === "none" ? 0 : policies;
    for (let i = 0; i < n; i++) {
      await registry.lookup(GROUP, "v1", "validatingadmissionpolicies")!.create("", policy(i));
      await registry.lookup(GROUP, "v1", "validatingadmissionpolicybindings")!.create(
        "",
        binding(i),
      );
    }
    const cms = registry.lookup("", "v1", "configmaps")!;
    await cms.create("default", body("warm"));
    return await run((i) => cms.create("default", body(`cm-${i}`)).then(() => {}));
  } finally {
    await feed.stop();
    await storage.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/** Part 2: HTTPS creates through the server, after creating `policies` policies. */
async function httpsCreates(counts: number[]): Promise<number[]> {
  const { dir, server, createOver } = await benchServer();
  const rates: number[] = [];
  try {
    let created = 0, round = 0;
    for (const n of counts) {
      for (; created < n; created++) {
        await server.registry.lookup(GROUP, "v1", "validatingadmissionpolicies")!.create(
          "",
          policy(created),
        );
        await server.registry.lookup(GROUP, "v1", "validatingadmissionpolicybindings")!.create(
          "",
          binding(created),
        );
      }
      rates.push(await run(createOver(`r${round++}`)));
    }
    return rates;
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/** A server on a free port, and creates of ConfigMaps over HTTPS to it. */
async function benchServer() {
  const dir = await Deno.makeTempDir({ prefix: "bench-vap-http-" });
  const parsed = parseServerOptions([
    `--data-dir=${dir}`,
    "--secure-port=0",
    "--bind-address=127.0.0.1",
  ]);
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  const server = await startServer(parsed.options, {
    logger: new Logger({ verbosity: 0, sink: () => {} }),
  });
  await server.ready;
  const client = Deno.createHttpClient({ caCerts: [server.caPem] });
  const headers = {
    authorization: `Bearer ${server.adminToken}`,
    "content-type": "application/json",
  };
  const createOver = (prefix: string) => async (i: number) => {
    const r = await fetch(`${server.url}/api/v1/namespaces/default/configmaps`, {
      method: "POST",
      headers,
      body: JSON.stringify(body(`${prefix}-${i}`)),
      client,
    });
    await r.arrayBuffer();
    if (r.status !== 201) throw new Error(`create answered ${r.status}`);
  };
  const close = server.close.bind(server);
  server.close = async () => (client.close(), await close());
  return { dir, server, createOver };
}

/** A local HTTPS validating webhook that allows every request; its URL and CA bundle. */
async function allowingWebhook() {
  const ca = await createCA("bench-webhook-ca");
  const serving = await issueCertificate({
    ca,
    commonName: "bench-webhook",
    ipAddresses: ["127.0.0.1"],
    usages: "server",
  });
  const hook = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    cert: serving.certPem,
    key: serving.keyPem,
    onListen() {},
  }, async (req) => {
    const review = await req.json() as { request: { uid: string } };
    return Response.json({
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      response: { uid: review.request.uid, allowed: true },
    });
  });
  return { url: `https://127.0.0.1:${hook.addr.port}/validate`, caBundle: btoa(ca.certPem), hook };
}

/** Part 3: HTTPS creates without, then with, one validating webhook matching them. */
async function webhookCreates(): Promise<{ without: number; withHook: number }> {
  const { dir, server, createOver } = await benchServer();
  const { url, caBundle, hook } = await allowingWebhook();
  try {
    await run(createOver("warm")); // warm-up, not reported
    const without = await run(createOver("without"));
    await server.registry.lookup(GROUP, "v1", "validatingwebhookconfigurations")!.create("", {
      metadata: { name: "allow-all" },
      webhooks: [{
        name: "allow.bench.example.com",
        clientConfig: { url, caBundle },
        rules: [{
          operations: ["CREATE"],
          apiGroups: [""],
          apiVersions: ["v1"],
          resources: ["configmaps"],
        }],
        sideEffects: "None",
        admissionReviewVersions: ["v1"],
      }],
    });
    await new Promise((r) => setTimeout(r, 1_500)); // the configuration is followed within 1 s
    await run(createOver("warm-hook"));
    const withHook = await run(createOver("with"));
    return { without, withHook };
  } finally {
    await server.close();
    await hook.shutdown();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

const fmt = (r: number) => Math.round(r).toLocaleString("en-US").padStart(7);
console.log(`ConfigMap creates/s, concurrency ${CONCURRENCY}, ${SECONDS}s each`);
await storeCreates(1); // warm-up (compilation of the hot paths), not reported
const none = await storeCreates("none");
console.log(`store, no admission:   ${fmt(none)}`);
for (const n of [0, 1, 10]) {
  const r = await storeCreates(n);
  console.log(
    `store, ${String(n).padStart(2)} policies:     ${fmt(r)}  (${
      (r / none).toFixed(3)
    } of no admission)`,
  );
}
const [, h0, h1, h10] = await httpsCreates([0, 0, 1, 10]); // the first round warms up
console.log(`HTTPS,  0 policies:     ${fmt(h0)}`);
console.log(`HTTPS,  1 policy:       ${fmt(h1)}  (${(h1 / h0).toFixed(3)} of 0 policies)`);
console.log(`HTTPS, 10 policies:     ${fmt(h10)}  (${(h10 / h0).toFixed(3)} of 0 policies)`);
const { without, withHook } = await webhookCreates();
console.log(`HTTPS, no webhook:      ${fmt(without)}`);
console.log(
  `HTTPS, 1 local webhook: ${fmt(withHook)}  (${(withHook / without).toFixed(3)} of no webhook)`,
);
