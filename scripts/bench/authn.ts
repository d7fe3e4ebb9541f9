/**
 * Authenticated GET requests per second with each authentication method (static token file,
 * service account JWT, client certificate) against unauthenticated (anonymous) GETs, in one
 * run against one real server. Every request is `GET /version`, which everyone may read, so
 * the difference between rows is the cost of authenticating.
 *
 * Run: `./scripts/deno run -A scripts/bench/authn.ts [--rounds 3] [--round-ms 1000] [--concurrency 8]`
 *
 * The machine is shared, so rounds of each method are interleaved and both the best and the
 * median round are reported.
 *
 * @module
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { parseServerOptions } from "../../apiserver/options.ts";
import { issueCertificate } from "../../shared/pki/issue_certificate.ts";
import { startServer } from "../../apiserver/server.ts";
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

const dir = await Deno.makeTempDir({ prefix: "bench-authn-" });
await Deno.writeTextFile(join(dir, "tokens.csv"), 'bench-token-0123456789,bench,1,"dev"\n');
const parsed = parseServerOptions([
  `--data-dir=${dir}`,
  "--secure-port=0",
  "--bind-address=127.0.0.1",
  `--token-auth-file=${join(dir, "tokens.csv")}`,
]);
if (!parsed.ok) throw new Error(parsed.errors.join("; "));
const server = await startServer(parsed.options, {
  logger: new Logger({ verbosity: 0, sink: () => {} }),
});
await server.ready;

const adminClient = Deno.createHttpClient({ caCerts: [server.caPem] });
const admin = (path: string, body: unknown) =>
  fetch(server.url + path, {
    method: "POST",
    client: adminClient,
    headers: { authorization: `Bearer ${server.adminToken}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  }).then((r) => r.json());
await admin("/api/v1/namespaces/default/serviceaccounts", {
  apiVersion: "v1",
  kind: "ServiceAccount",
  metadata: { name: "bench" },
});
const tr = await admin("/api/v1/namespaces/default/serviceaccounts/bench/token", {
  apiVersion: "authentication.k8s.io/v1",
  kind: "TokenRequest",
  spec: { audiences: ["https://kubernetes.default.svc.cluster.local"] },
});
const saToken: string = tr.status.token;
const cert = await issueCertificate({
  ca: server.pki.clientCa,
  commonName: "bench-cert",
  organizations: ["dev"],
  usages: "client",
});

interface Method {
  name: string;
  client: Deno.HttpClient;
  headers: Record<string, string>;
}
const plain = Deno.createHttpClient({ caCerts: [server.caPem] });
const methods: Method[] = [
  { name: "unauthenticated (anonymous)", client: plain, headers: {} },
  {
    name: "static token file",
    client: Deno.createHttpClient({ caCerts: [server.caPem] }),
    headers: { authorization: "Bearer bench-token-0123456789" },
  },
  {
    name: "service account JWT (lookup on)",
    client: Deno.createHttpClient({ caCerts: [server.caPem] }),
    headers: { authorization: `Bearer ${saToken}` },
  },
  {
    name: "client certificate",
    client: Deno.createHttpClient({
      caCerts: [server.caPem],
      cert: cert.certPem,
      key: cert.keyPem,
    } as Deno.CreateHttpClientOptions),
    headers: {},
  },
];

function round(m: Method): Promise<number> {
  return getRound({
    name: m.name,
    url: server.url + "/version",
    client: m.client,
    headers: m.headers,
    concurrency,
    roundMs,
  });
}

const results = new Map<string, number[]>(methods.map((m) => [m.name, []]));
for (const m of methods) await round(m); // warm up connections and caches
for (let r = 0; r < rounds; r++) {
  for (const m of methods) results.get(m.name)!.push(await round(m));
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const base = median(results.get(methods[0].name)!);
console.log(
  `GET /version, ${concurrency} concurrent, ${rounds} rounds of ${roundMs} ms each (Deno ${Deno.version.deno})`,
);
console.log(
  "method".padEnd(34),
  "best req/s".padStart(11),
  "median req/s".padStart(13),
  "vs anon".padStart(8),
);
for (const m of methods) {
  const xs = results.get(m.name)!;
  const med = median(xs);
  console.log(
    m.name.padEnd(34),
    Math.max(...xs).toFixed(0).padStart(11),
    med.toFixed(0).padStart(13),
    `${((med / base) * 100).toFixed(0)}%`.padStart(8),
  );
}

for (const m of methods) if (m.client !== plain) m.client.close();
plain.close();
adminClient.close();
await server.close();
await Deno.remove(dir, { recursive: true });
