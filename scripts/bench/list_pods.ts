/**
 * Lists of Pods in JSON, Protobuf and Table: starts the real API server as a subprocess on
 * loopback, creates `--objects` Pods with realistic specs (about 3 KiB as sent: labels,
 * annotations, two containers with env, resources, ports, probes and volume
 * mounts, volumes, affinity, tolerations; the server's defaults and managedFields make more of
 * it stored), then reads them all in pages of `--page-size` (`limit` and `continue`; gzip
 * offered, as clients do),
 * `--repeats` times per format, and prints the median (p50) and p99 time per page beside the
 * same-run anchor: the raw libSQL read of the same rows from the server's own database file
 * (`SELECT key, value, revision FROM kv` in key order, pages of the same size, no decoding).
 *
 *   ./scripts/deno run -A scripts/bench/list_pods.ts [--objects=10000] [--page-size=500]
 *     [--repeats=3] [--concurrency=16] [--cap-seconds=300]
 *
 * @module
 */
import { createClient } from "@libsql/client";
import { parseArgs } from "node:util";
import { decodeObject } from "../../shared/codec/protobuf/mod.ts";
import { adminHeaders, adminHttpClient, startApiServerProcess } from "./lib/apiserver_process.ts";
import { readProcStats } from "./lib/proc_stats.ts";
import { runPool } from "./lib/run_pool.ts";
import { percentile } from "./lib/stats.ts";

const { values } = parseArgs({
  options: {
    objects: { type: "string", default: "10000" },
    "page-size": { type: "string", default: "500" },
    repeats: { type: "string", default: "3" },
    concurrency: { type: "string", default: "16" },
    "cap-seconds": { type: "string", default: "300" },
  },
});
const N = Number(values.objects), PAGE = Number(values["page-size"]);
const REPEATS = Number(values.repeats), C = Number(values.concurrency);
const CAP_MS = Number(values["cap-seconds"]) * 1000;
const NAMESPACE = "default";

const FORMATS: Record<string, string> = {
  json: "application/json",
  protobuf: "application/vnd.kubernetes.protobuf",
  table: "application/json;as=Table;v=v1;g=meta.k8s.io,application/json",
};

/** Pod number `i`: a web container and a sidecar, as a Deployment's template would make. */
export function benchPod(i: number): Record<string, unknown> {
  const name = `web-7d9f8c6b5-${String(i).padStart(6, "0")}`;
  const env = (prefix: string) =>
    Array.from({ length: 8 }, (_, k) => ({ name: `${prefix}_VAR_${k}`, value: `value-${k}-${i}` }));
  const probe = (path: string) => ({
    httpGet: { path, port: 8080, scheme: "HTTP" },
    initialDelaySeconds: 5,
    periodSeconds: 10,
    timeoutSeconds: 2,
    failureThreshold: 3,
  });
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      labels: { app: "web", tier: "frontend", "pod-template-hash": "7d9f8c6b5", shard: `${i % 8}` },
      annotations: {
        "prometheus.io/scrape": "true",
        "prometheus.io/port": "9090",
        "kubectl.kubernetes.io/restartedAt": "2026-11-24T10:00:00Z",
        "checksum/config": "9f2c4e1b7a3d5f60".repeat(4),
        "team.example.com/owner": "storefront",
        "team.example.com/runbook": "https://runbooks.example.com/storefront/web",
        // No ownerReferences: the garbage collector would delete Pods whose owner is absent.
        "team.example.com/replicaset": "web-7d9f8c6b5 6f1e2d3c-4b5a-4968-8776-5a4b3c2d1e0f",
      },
    },
    spec: {
      serviceAccountName: "default",
      containers: [{
        name: "web",
        image: "registry.example.com/team/web:1.27.3",
        args: ["--port=8080", "--log-level=info", "--metrics-port=9090"],
        ports: [{ name: "http", containerPort: 8080 }, { name: "metrics", containerPort: 9090 }],
        env: env("WEB"),
        resources: {
          requests: { cpu: "250m", memory: "256Mi" },
          limits: { cpu: "1", memory: "512Mi" },
        },
        readinessProbe: probe("/ready"),
        livenessProbe: probe("/healthz"),
        volumeMounts: [
          { name: "config", mountPath: "/etc/web" },
          { name: "cache", mountPath: "/var/cache/web" },
        ],
      }, {
        name: "log-shipper",
        image: "registry.example.com/infra/log-shipper:2.4.1",
        env: env("SHIPPER"),
        resources: { requests: { cpu: "50m", memory: "64Mi" }, limits: { memory: "128Mi" } },
        volumeMounts: [{ name: "cache", mountPath: "/var/cache/web", readOnly: true }],
      }],
      affinity: {
        podAntiAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [{
            weight: 100,
            podAffinityTerm: {
              labelSelector: { matchLabels: { app: "web" } },
              topologyKey: "kubernetes.io/hostname",
            },
          }],
        },
      },
      volumes: [
        { name: "config", configMap: { name: "web-config" } },
        { name: "cache", emptyDir: {} },
      ],
      tolerations: [{
        key: "node.kubernetes.io/not-ready",
        operator: "Exists",
        effect: "NoExecute",
        tolerationSeconds: 300,
      }],
    },
  };
}

/** p50 and p99 of a list of page times, in ms. */
function summary(ms: number[]): string {
  const f = (p: number) => percentile(ms, p).toFixed(1).padStart(8);
  return `${f(50)} ${f(99)}`;
}

/** Every page of the Pod list in `accept`, `REPEATS` times; the time of each page, in ms. */
async function listPages(
  call: (path: string, accept: string) => Promise<Response>,
  accept: string,
  protobuf: boolean,
): Promise<{ ms: number[]; bytes: number; items: number }> {
  const ms: number[] = [];
  let bytes = 0, items = 0;
  for (let r = 0; r < REPEATS; r++) {
    let token: string | undefined;
    items = 0;
    do {
      const q = new URLSearchParams({ limit: String(PAGE) });
      if (token) q.set("continue", token);
      const t0 = performance.now();
      const res = await call(`/api/v1/namespaces/${NAMESPACE}/pods?${q}`, accept);
      const body = new Uint8Array(await res.arrayBuffer());
      ms.push(performance.now() - t0);
      if (res.status !== 200) throw new Error(`list answered ${res.status}`);
      bytes += body.byteLength;
      const page = (protobuf ? decodeObject(body) : JSON.parse(new TextDecoder().decode(body))) as {
        items?: unknown[];
        rows?: unknown[];
        metadata?: { continue?: string };
      };
      items += (page.items ?? page.rows ?? []).length;
      token = page.metadata?.continue || undefined;
    } while (token);
  }
  return { ms, bytes: bytes / ms.length, items };
}

/** The raw anchor: the same rows read from the server's database file in key order. */
async function rawPages(dbPath: string): Promise<{ ms: number[]; bytes: number; items: number }> {
  const db = createClient({ url: `file:${dbPath}` });
  const prefix = `/registry/core/pods/${NAMESPACE}/`;
  const ms: number[] = [];
  let bytes = 0, items = 0;
  try {
    for (let r = 0; r < REPEATS; r++) {
      let after = prefix;
      items = 0;
      for (;;) {
        const t0 = performance.now();
        const rs = await db.execute({
          sql: "SELECT key, value, revision FROM kv WHERE key > ? AND key < ? ORDER BY key LIMIT ?",
          args: [after, `${prefix}\uffff`, PAGE],
        });
        ms.push(performance.now() - t0);
        if (rs.rows.length === 0) {
          ms.pop();
          break;
        }
        for (const row of rs.rows) bytes += String(row[1]).length;
        items += rs.rows.length;
        after = String(rs.rows[rs.rows.length - 1][0]);
      }
    }
  } finally {
    db.close();
  }
  return { ms, bytes: bytes / ms.length, items };
}

if (import.meta.main) {
  const dir = await Deno.makeTempDir({ prefix: "bench-list-pods-" });
  const server = await startApiServerProcess({ dataDir: `${dir}/apiserver` });
  const clients = Array.from({ length: C }, () => adminHttpClient(server));
  const call = (path: string, accept: string, init: RequestInit = {}, worker = 0) =>
    fetch(server.url + path, {
      ...init,
      headers: adminHeaders(server, { accept, ...init.headers }),
      client: clients[worker],
    });
  try {
    console.error(`creating ${N} Pods`);
    const pool = await runPool(
      { count: N, concurrency: C, capMs: CAP_MS },
      async (i, worker) => {
        const res = await call(`/api/v1/namespaces/${NAMESPACE}/pods`, "application/json", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(benchPod(i)),
        }, worker);
        const text = await res.text();
        if (res.status !== 201) throw new Error(`create answered ${res.status}: ${text}`);
      },
    );
    if (pool.firstError !== undefined) throw pool.firstError;
    console.log(
      `${pool.done} Pods created in ${pool.seconds.toFixed(1)} s; pages of ${PAGE}, ` +
        `${REPEATS} full reads per format`,
    );
    console.log("format       p50 ms   p99 ms  bytes/page  items  server CPU ms/page");
    const rows: [string, () => Promise<{ ms: number[]; bytes: number; items: number }>][] = [
      ...Object.entries(FORMATS).map(([name, accept]) =>
        [name, () => listPages(call, accept, name === "protobuf")] as [
          string,
          () => Promise<{ ms: number[]; bytes: number; items: number }>,
        ]
      ),
      ["raw libSQL", () => rawPages(`${dir}/apiserver/state.db`)],
    ];
    for (const [name, run] of rows) {
      const before = await readProcStats(server.pid);
      const r = await run();
      const after = await readProcStats(server.pid);
      const cpu = before && after && name !== "raw libSQL"
        ? ((after.cpuSeconds - before.cpuSeconds) * 1000 / r.ms.length).toFixed(1)
        : "-";
      console.log(
        `${name.padEnd(11)} ${summary(r.ms)} ${String(Math.round(r.bytes)).padStart(11)} ${
          String(r.items).padStart(6)
        } ${cpu.padStart(19)}`,
      );
    }
  } finally {
    for (const c of clients) c.close();
    await server.stop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}
