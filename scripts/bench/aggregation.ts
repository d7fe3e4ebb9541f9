/**
 * GETs per second through the aggregation layer beside the same GETs sent directly to the
 * extension API server, in one run: two of our servers on loopback, the second in
 * extension-server mode (`--authentication-kubeconfig`/`--authorization-kubeconfig` naming the
 * first), serving a custom resource from its own storage, registered in the first through an
 * APIService (an ExternalName Service to 127.0.0.1, its CA as caBundle). Every request is a
 * GET of the same Flunder. Rows:
 *
 * - direct: the extension's own admin token (the anchor);
 * - proxied, admin: through the first server (authentication, RBAC, proxy with the
 *   front-proxy certificate; the extension trusts the headers and allows system:masters);
 * - proxied, RBAC user: a token user allowed by a RoleBinding in the first server, so the
 *   extension also asks the first server's SubjectAccessReview (cached 10 s, as kube's).
 *
 * Both servers run in this one process, as the tests start them: a proxied GET pays the first
 * server's work and the extension's on one event loop, a direct GET only the extension's.
 *
 * Run: `./scripts/deno run -A scripts/bench/aggregation.ts [--rounds 3] [--round-ms 1000] [--concurrency 8]`
 *
 * @module
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { parseServerOptions } from "../../apiserver/options.ts";
import { type RunningServer, startServer } from "../../apiserver/server.ts";
import { Logger } from "../../shared/log/mod.ts";
import { getRound } from "./lib/get_round.ts";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "3" },
    "round-ms": { type: "string", default: "1000" },
    concurrency: { type: "string", default: "8" },
  },
});
const rounds = Number(values.rounds);
const roundMs = Number(values["round-ms"]);
const concurrency = Number(values.concurrency);
const GROUP = "wardle.example.com", VERSION = "v1alpha1", NS = "wardle";
const PATH = `/apis/${GROUP}/${VERSION}/namespaces/${NS}/flunders/one`;

async function start(flags: string[], dir: string): Promise<RunningServer> {
  const parsed = parseServerOptions([
    `--data-dir=${dir}`,
    "--secure-port=0",
    "--bind-address=127.0.0.1",
    ...flags,
  ]);
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  parsed.options.aggregatorResyncMs = 1_000;
  const s = await startServer(parsed.options, {
    logger: new Logger({ verbosity: 0, sink: () => {} }),
  });
  await s.ready;
  return s;
}

/** An admin call that must succeed. */
function caller(s: RunningServer) {
  const client = Deno.createHttpClient({ caCerts: [s.caPem] });
  const call = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(s.url + path, {
      method,
      client,
      headers: { authorization: `Bearer ${s.adminToken}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.text();
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${text}`);
    return JSON.parse(text);
  };
  return { call, close: () => client.close() };
}

const dir = await Deno.makeTempDir({ prefix: "bench-aggregation-" });
await Deno.writeTextFile(join(dir, "tokens.csv"), "ext-token,ext-server,1\nbob-token,bob,2\n");
const main = await start([`--token-auth-file=${join(dir, "tokens.csv")}`], join(dir, "main"));
const m = caller(main);
const rbac = "/apis/rbac.authorization.k8s.io/v1";
const subject = (name: string) => [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name }];
const roleRef = (kind: string, name: string) => ({
  apiGroup: "rbac.authorization.k8s.io",
  kind,
  name,
});
await m.call("POST", `${rbac}/clusterrolebindings`, {
  metadata: { name: "ext-server" },
  roleRef: roleRef("ClusterRole", "system:auth-delegator"),
  subjects: subject("ext-server"),
});
await m.call("POST", `${rbac}/namespaces/kube-system/rolebindings`, {
  metadata: { name: "ext-server" },
  roleRef: roleRef("Role", "extension-apiserver-authentication-reader"),
  subjects: subject("ext-server"),
});
await m.call("POST", "/api/v1/namespaces", { metadata: { name: NS } });
await m.call("POST", `${rbac}/namespaces/${NS}/roles`, {
  metadata: { name: "reader" },
  rules: [{ apiGroups: [GROUP], resources: ["flunders"], verbs: ["get"] }],
});
await m.call("POST", `${rbac}/namespaces/${NS}/rolebindings`, {
  metadata: { name: "bob" },
  roleRef: roleRef("Role", "reader"),
  subjects: subject("bob"),
});
const kubeconfig = join(dir, "ext.kubeconfig");
await Deno.writeTextFile(
  kubeconfig,
  JSON.stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{
      name: "main",
      cluster: { server: main.url, "certificate-authority-data": btoa(main.caPem) },
    }],
    users: [{ name: "ext", user: { token: "ext-token" } }],
    contexts: [{ name: "main", context: { cluster: "main", user: "ext" } }],
    "current-context": "main",
  }),
);
const ext = await start([
  `--authentication-kubeconfig=${kubeconfig}`,
  `--authorization-kubeconfig=${kubeconfig}`,
  `--tls-san=api.${NS}.svc`,
  "--disable-scheduler",
], join(dir, "ext"));
const e = caller(ext);
await e.call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", {
  metadata: { name: `flunders.${GROUP}` },
  spec: {
    group: GROUP,
    scope: "Namespaced",
    names: { plural: "flunders", singular: "flunder", kind: "Flunder" },
    versions: [{
      name: VERSION,
      served: true,
      storage: true,
      schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
    }],
  },
});
await e.call("POST", "/api/v1/namespaces", { metadata: { name: NS } });
const deadline = Date.now() + 60_000;
for (;;) {
  try {
    await e.call("POST", `/apis/${GROUP}/${VERSION}/namespaces/${NS}/flunders`, {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: "Flunder",
      metadata: { name: "one" },
      spec: { size: 3 },
    });
    break;
  } catch (err) {
    if (Date.now() > deadline) throw err;
    await new Promise((r) => setTimeout(r, 200));
  }
}
await m.call("POST", `/api/v1/namespaces/${NS}/services`, {
  metadata: { name: "api" },
  spec: { type: "ExternalName", externalName: "127.0.0.1" },
});
await m.call("POST", "/apis/apiregistration.k8s.io/v1/apiservices", {
  metadata: { name: `${VERSION}.${GROUP}` },
  spec: {
    group: GROUP,
    version: VERSION,
    service: { namespace: NS, name: "api", port: ext.port },
    caBundle: btoa(ext.caPem),
    groupPriorityMinimum: 1000,
    versionPriority: 15,
  },
});
const probe = Deno.createHttpClient({ caCerts: [main.caPem] });
for (;;) {
  const r = await fetch(main.url + PATH, {
    client: probe,
    headers: { authorization: `Bearer ${main.adminToken}` },
  });
  await r.body?.cancel();
  if (r.status === 200) break;
  if (Date.now() > deadline) {
    throw new Error(`the APIService did not become available: ${r.status}`);
  }
  await new Promise((r) => setTimeout(r, 200));
}
probe.close();

interface Row {
  name: string;
  server: RunningServer;
  client: Deno.HttpClient;
  token: string;
}
const rows: Row[] = [
  { name: "direct to the extension", server: ext, token: ext.adminToken },
  { name: "proxied, admin", server: main, token: main.adminToken },
  { name: "proxied, RBAC user (+ SAR)", server: main, token: "bob-token" },
].map((r) => ({ ...r, client: Deno.createHttpClient({ caCerts: [r.server.caPem] }) }));

function round(row: Row): Promise<number> {
  return getRound({
    name: row.name,
    url: row.server.url + PATH,
    client: row.client,
    headers: { authorization: `Bearer ${row.token}` },
    concurrency,
    roundMs,
  });
}

const results = new Map<string, number[]>(rows.map((r) => [r.name, []]));
for (const row of rows) await round(row); // warm up connections and caches
for (let r = 0; r < rounds; r++) {
  for (const row of rows) results.get(row.name)!.push(await round(row));
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const base = median(results.get(rows[0].name)!);
console.log(
  `GET ${PATH}, ${concurrency} concurrent, ${rounds} rounds of ${roundMs} ms each (Deno ${Deno.version.deno})`,
);
console.log(
  "path".padEnd(30),
  "best req/s".padStart(11),
  "median req/s".padStart(13),
  "vs direct".padStart(10),
);
for (const row of rows) {
  const xs = results.get(row.name)!;
  const med = median(xs);
  console.log(
    row.name.padEnd(30),
    Math.max(...xs).toFixed(0).padStart(11),
    med.toFixed(0).padStart(13),
    `${((med / base) * 100).toFixed(0)}%`.padStart(10),
  );
}

for (const row of rows) row.client.close();
m.close();
e.close();
await ext.close();
await main.close();
await Deno.remove(dir, { recursive: true });
