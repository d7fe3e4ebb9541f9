/**
 * The cost of the access-control files, in one run: GETs of one ConfigMap per second by
 * concurrent HTTPS clients, four ways.
 *
 * - Authentication, on server A (`--authentication-config` with one JWT issuer, RBAC):
 *   - an OpenID Connect ID token from a test issuer started here (its discovery and keys;
 *     verified tokens are cached by the server);
 *   - beside it, the anchor: a service-account token of the same server.
 * - Authorization, by a static-token user (`--token-auth-file`):
 *   - on server B (`--authorization-config`: a Webhook authorizer, then RBAC), allowed by a test
 *     SubjectAccessReview webhook started here, its answer cached (the cache is warmed first);
 *   - beside it, the anchor: the same user allowed by a RoleBinding under RBAC on server A.
 *
 * Rounds interleave the four (A B C D, A B C D…), so a pause of the machine hits them alike. The
 * report gives each row's median rate and its median per-round ratio to its anchor, and how
 * many reviews the webhook answered (it should be one: the cache answers the rest). Figures are
 * printed, never asserted.
 *
 *   ./scripts/deno run -A scripts/bench/access_control.ts [--gets=1000] [--concurrency=8]
 *     [--rounds=5] [--warmup=300]
 *
 * @module
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { type ApiServerProcess, startApiServerProcess } from "./lib/apiserver_process.ts";
import { runPool } from "./lib/run_pool.ts";
import { renderAdminKubeconfig } from "../../apiserver/pki/write_admin_kubeconfig.ts";
import { median } from "./lib/stats.ts";
import { startTestOidcIssuer } from "../../test/support/test_oidc_issuer.ts";
import { startSarWebhook } from "../../test/support/test_sar_webhook.ts";

const { values } = parseArgs({
  options: {
    gets: { type: "string", default: "1000" },
    concurrency: { type: "string", default: "8" },
    rounds: { type: "string", default: "5" },
    warmup: { type: "string", default: "300" },
  },
});
const gets = Number(values.gets);
const concurrency = Number(values.concurrency);
const rounds = Number(values.rounds);
const warmup = Number(values.warmup);

/** The user of the static token file (the webhook test service allows `alice`). */
const STATIC_TOKEN = "bench-static-token-0123456789";
const CM_PATH = "/api/v1/namespaces/default/configmaps/bench";

interface Row {
  name: string;
  anchor?: string;
  server: ApiServerProcess;
  client: Deno.HttpClient;
  token: string;
  rates: number[];
}

/** `path` as the server's admin (its client certificate); the answer's JSON. */
async function admin(s: ApiServerProcess, path: string, body: unknown): Promise<unknown> {
  const client = Deno.createHttpClient({
    caCerts: [s.caPem],
    ...(s.clientCertPem ? { cert: s.clientCertPem, key: s.clientKeyPem } : {}),
  } as Deno.CreateHttpClientOptions);
  try {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (s.token) headers.authorization = `Bearer ${s.token}`;
    const res = await fetch(s.url + path, {
      method: "POST",
      client,
      headers,
      body: JSON.stringify(body),
    });
    const out = await res.json();
    if (res.status >= 300 && res.status !== 409) throw new Error(`${path}: ${res.status}`);
    return out;
  } finally {
    client.close();
  }
}

/** A ConfigMap to read, a Role that may read it bound to `subjects`, and a service account. */
async function seed(s: ApiServerProcess, subjects: unknown[]): Promise<string> {
  const ns = "/api/v1/namespaces/default";
  await admin(s, `${ns}/configmaps`, { metadata: { name: "bench" }, data: { v: "x" } });
  const rbac = "/apis/rbac.authorization.k8s.io/v1/namespaces/default";
  await admin(s, `${rbac}/roles`, {
    metadata: { name: "bench-reader" },
    rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get"] }],
  });
  await admin(s, `${rbac}/rolebindings`, {
    metadata: { name: "bench-reader" },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "bench-reader" },
    subjects,
  });
  await admin(s, `${ns}/serviceaccounts`, { metadata: { name: "bench" } });
  const tr = await admin(s, `${ns}/serviceaccounts/bench/token`, {
    apiVersion: "authentication.k8s.io/v1",
    kind: "TokenRequest",
    spec: {},
  }) as { status: { token: string } };
  return tr.status.token;
}

/** `count` GETs of the ConfigMap as `row`; GETs per second. */
async function getRound(row: Row, count: number): Promise<number> {
  const headers = { authorization: `Bearer ${row.token}` };
  const result = await runPool({ count, concurrency, capMs: 120_000 }, async () => {
    const res = await fetch(row.server.url + CM_PATH, { headers, client: row.client });
    await res.body?.cancel();
    if (res.status !== 200) throw new Error(`get: ${res.status}`);
  });
  if (result.failed > 0) throw new Error(`${row.name}: ${String(result.firstError)}`);
  return result.done / result.seconds;
}

/** Waits until `row` can GET (the issuer's discovery runs in the background at start). */
async function untilReady(row: Row): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const res = await fetch(row.server.url + CM_PATH, {
      headers: { authorization: `Bearer ${row.token}` },
      client: row.client,
    });
    await res.body?.cancel();
    if (res.status === 200) return;
    if (Date.now() > deadline) throw new Error(`${row.name}: GET answered ${res.status}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The token file, the authentication and authorization files and the webhook's kubeconfig. */
async function writeConfigs(
  dir: string,
  issuer: { url: string; caPem: string },
  hook: { server: { port: number }; caPem: string },
): Promise<void> {
  await Deno.writeTextFile(join(dir, "tokens.csv"), `${STATIC_TOKEN},alice,alice-uid,"dev"\n`);
  await Deno.writeTextFile(
    join(dir, "authn.yaml"),
    JSON.stringify({
      apiVersion: "apiserver.config.k8s.io/v1beta1",
      kind: "AuthenticationConfiguration",
      jwt: [{
        issuer: { url: issuer.url, certificateAuthority: issuer.caPem, audiences: ["bench"] },
        claimMappings: { username: { claim: "sub", prefix: "oidc:" } },
      }],
    }),
  );
  const kubeconfig = join(dir, "webhook.kubeconfig");
  await Deno.writeTextFile(
    kubeconfig,
    renderAdminKubeconfig({
      server: `https://127.0.0.1:${hook.server.port}/authorize`,
      caPem: hook.caPem,
      userName: "apiserver",
    }),
  );
  await Deno.writeTextFile(
    join(dir, "authz.yaml"),
    JSON.stringify({
      apiVersion: "apiserver.config.k8s.io/v1",
      kind: "AuthorizationConfiguration",
      authorizers: [{
        type: "Webhook",
        name: "bench-webhook",
        webhook: {
          timeout: "3s",
          subjectAccessReviewVersion: "v1",
          failurePolicy: "Deny",
          connectionInfo: { type: "KubeConfigFile", kubeConfigFile: kubeconfig },
        },
      }, { type: "RBAC", name: "rbac" }],
    }),
  );
}

/** Each row's median rate, its median per-round ratio to its anchor, and its rounds. */
function report(rows: Row[], reviews: number): void {
  console.log(
    `GETs of one ConfigMap per second (${rounds} rounds of ${gets}, concurrency ${concurrency}):`,
  );
  for (const r of rows) {
    const anchor = rows.find((x) => x.name === r.anchor);
    const vs = anchor
      ? `  ×${anchor.name} ${median(r.rates.map((x, i) => x / anchor.rates[i])).toFixed(2)}`
      : "";
    console.log(
      `  ${r.name.padEnd(22)} median ${median(r.rates).toFixed(0).padStart(6)}/s${vs}  rounds ${
        r.rates.map((x) => x.toFixed(0)).join(" ")
      }`,
    );
  }
  console.log(`  webhook reviews answered: ${reviews}`);
}

const dir = await Deno.makeTempDir({ prefix: "bench-access-control-" });
const issuer = await startTestOidcIssuer();
const hook = await startSarWebhook();
const servers: ApiServerProcess[] = [];
const rows: Row[] = [];
try {
  await writeConfigs(dir, issuer, hook);
  const tokens = `--token-auth-file=${join(dir, "tokens.csv")}`;
  for (const name of ["a", "b"]) await Deno.mkdir(join(dir, name));
  const a = await startApiServerProcess({
    dataDir: join(dir, "a"),
    flags: [tokens, `--authentication-config=${join(dir, "authn.yaml")}`],
  });
  servers.push(a);
  const b = await startApiServerProcess({
    dataDir: join(dir, "b"),
    flags: [tokens, `--authorization-config=${join(dir, "authz.yaml")}`],
  });
  servers.push(b);
  const rbac = "rbac.authorization.k8s.io";
  const saA = await seed(a, [
    { kind: "User", apiGroup: rbac, name: "oidc:alice" },
    { kind: "User", apiGroup: rbac, name: "alice" },
    { kind: "ServiceAccount", name: "bench", namespace: "default" },
  ]);
  await seed(b, []);
  const idToken = await issuer.sign({ sub: "alice", aud: "bench" });
  const row = (name: string, server: ApiServerProcess, token: string, anchor?: string): Row => ({
    name,
    anchor,
    server,
    token,
    client: Deno.createHttpClient({ caCerts: [server.caPem], http2: false }),
    rates: [],
  });
  rows.push(
    row("service-account token", a, saA),
    row("OIDC ID token", a, idToken, "service-account token"),
    row("RBAC", a, STATIC_TOKEN),
    row("webhook (cache warm)", b, STATIC_TOKEN, "RBAC"),
  );
  for (const r of rows) await untilReady(r);
  for (const r of rows) await getRound(r, warmup);
  for (let i = 0; i < rounds; i++) {
    for (const r of rows) r.rates.push(await getRound(r, gets));
  }
  report(rows, hook.seen.length);
} finally {
  for (const r of rows) r.client.close();
  for (const s of servers) await s.stop();
  await hook.server.close();
  await issuer.close();
  await Deno.remove(dir, { recursive: true });
}
