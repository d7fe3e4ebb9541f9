/**
 * Get and list throughput for JSON, Protobuf and Table responses on 1,000 objects, in one run
 * against a real server (HTTPS, libSQL file in a temp dir).
 *
 *   ./scripts/deno run -A scripts/bench/formats.ts [--objects=1000] [--gets=2000] [--lists=20]
 *
 * @module
 */
import { parseArgs } from "node:util";
import { parseServerOptions } from "../../apiserver/options.ts";
import { startServer } from "../../apiserver/server.ts";
import { Logger } from "../../shared/log/mod.ts";

const { values } = parseArgs({
  options: {
    objects: { type: "string", default: "1000" },
    gets: { type: "string", default: "2000" },
    lists: { type: "string", default: "20" },
    concurrency: { type: "string", default: "8" },
  },
});
const N = Number(values.objects), GETS = Number(values.gets), LISTS = Number(values.lists);
const C = Number(values.concurrency);

const FORMATS: Record<string, string> = {
  json: "application/json",
  protobuf: "application/vnd.kubernetes.protobuf",
  table: "application/json;as=Table;v=v1;g=meta.k8s.io,application/json",
};

const dir = await Deno.makeTempDir({ prefix: "bench-formats-" });
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
const auth = { authorization: `Bearer ${server.adminToken}` };
const base = `${server.url}/api/v1/namespaces/default/configmaps`;

async function req(path: string, init: RequestInit = {}): Promise<number> {
  const res = await fetch(path, { ...init, headers: { ...auth, ...init.headers }, client });
  const body = await res.arrayBuffer();
  if (!res.ok) throw new Error(`${res.status} ${new TextDecoder().decode(body)}`);
  return body.byteLength;
}

async function pool(total: number, fn: (i: number) => Promise<number>): Promise<number> {
  let next = 0, bytes = 0;
  await Promise.all(Array.from({ length: C }, async () => {
    while (next < total) {
      const b = await fn(next++);
      bytes += b;
    }
  }));
  return bytes;
}

await pool(N, (i) =>
  req(base, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      metadata: {
        name: `cm-${String(i).padStart(5, "0")}`,
        labels: { app: "bench", i: String(i) },
      },
      data: { key: "value-".repeat(20), other: String(i) },
    }),
  }));

console.log(`${N} ConfigMaps; gets: ${GETS} (concurrency ${C}); lists: ${LISTS} of all ${N}`);
console.log("format    get/s    get bytes   list/s   list bytes  list items/s");
for (const [name, accept] of Object.entries(FORMATS)) {
  await pool(
    50,
    (i) => req(`${base}/cm-${String(i % N).padStart(5, "0")}`, { headers: { accept } }),
  );
  let t0 = performance.now();
  const gb = await pool(
    GETS,
    (i) => req(`${base}/cm-${String(i % N).padStart(5, "0")}`, { headers: { accept } }),
  );
  const getRate = GETS / ((performance.now() - t0) / 1000);
  t0 = performance.now();
  let lb = 0;
  for (let i = 0; i < LISTS; i++) lb = await req(base, { headers: { accept } });
  const listRate = LISTS / ((performance.now() - t0) / 1000);
  console.log(
    `${name.padEnd(9)} ${getRate.toFixed(0).padStart(6)} ${
      String(Math.round(gb / GETS)).padStart(11)
    } ${listRate.toFixed(1).padStart(8)} ${String(lb).padStart(12)} ${
      (listRate * N).toFixed(0).padStart(13)
    }`,
  );
}

client.close();
await server.close();
await Deno.remove(dir, { recursive: true });
