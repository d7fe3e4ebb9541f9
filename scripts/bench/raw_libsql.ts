/**
 * The raw `@libsql/client` ceiling: durable single-row transactions with nothing of ours on
 * top, measured with the same durability setting as the storage (WAL, SQLite's default
 * `synchronous=FULL`, never lowered). Other benchmarks call {@link rawLibsqlCeiling} for their
 * same-run anchor; run the file on its own to print the figure:
 *
 *   ./scripts/deno run -A scripts/bench/raw_libsql.ts [--rows=2000] [--concurrency=1] [--value-bytes=1024]
 *
 * @module
 */
import { createClient } from "@libsql/client";
import { parseArgs } from "node:util";

/** Options of {@link rawLibsqlCeiling}. */
export interface RawLibsqlOptions {
  /** Directory for the throwaway database (a fresh file is created and removed). */
  dir: string;
  /** Rows to insert, one per transaction. */
  rows: number;
  /** Concurrent writers issuing transactions. */
  concurrency: number;
  /** Bytes per value (1024 for the standard anchor). */
  valueBytes: number;
}

/** Result of {@link rawLibsqlCeiling}. */
export interface RawLibsqlResult {
  /** Committed rows per wall-clock second. */
  rowsPerSecond: number;
  /** Median latency of one transaction (call to resolve), in ms. */
  p50Ms: number;
}

/**
 * Inserts `rows` rows of `valueBytes` bytes, one per `BEGIN IMMEDIATE … COMMIT` transaction,
 * from `concurrency` writers, into a fresh WAL database in `dir`, and reports throughput and
 * median transaction latency. The database file is removed afterwards.
 */
export async function rawLibsqlCeiling(opts: RawLibsqlOptions): Promise<RawLibsqlResult> {
  const { dir, rows, concurrency, valueBytes } = opts;
  for (const [name, v] of Object.entries({ rows, concurrency, valueBytes })) {
    if (!Number.isSafeInteger(v) || v <= 0) throw new Error(`${name} must be a positive integer`);
  }
  const path = `${dir}/raw_libsql_${Deno.pid}_${Date.now()}.db`;
  const client = createClient({ url: `file:${path}` });
  try {
    await client.execute("PRAGMA journal_mode = WAL");
    await client.execute(
      "CREATE TABLE bench (id INTEGER PRIMARY KEY, name TEXT NOT NULL, value TEXT NOT NULL)",
    );
    const sync = Number((await client.execute("PRAGMA synchronous")).rows[0][0]);
    if (sync < 2) throw new Error(`expected synchronous=FULL (2), got ${sync}`);
    const value = JSON.stringify({ pad: "x".repeat(Math.max(0, valueBytes - 10)) }).slice(
      0,
      valueBytes,
    );
    const latencies: number[] = [];
    let next = 0;
    const writer = async () => {
      while (next < rows) {
        const i = next++;
        const t0 = performance.now();
        await client.batch([{
          sql: "INSERT INTO bench (name, value) VALUES (?, ?)",
          args: [`/registry/bench/${i}`, value],
        }], "write");
        latencies.push(performance.now() - t0);
      }
    };
    const start = performance.now();
    await Promise.all(Array.from({ length: concurrency }, writer));
    const seconds = (performance.now() - start) / 1000;
    latencies.sort((a, b) => a - b);
    return {
      rowsPerSecond: rows / seconds,
      p50Ms: latencies[Math.floor(latencies.length / 2)],
    };
  } finally {
    client.close();
    for (const suffix of ["", "-wal", "-shm"]) {
      await Deno.remove(path + suffix).catch(() => {});
    }
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      rows: { type: "string", default: "2000" },
      concurrency: { type: "string", default: "1" },
      "value-bytes": { type: "string", default: "1024" },
      dir: { type: "string" },
    },
  });
  const dir = values.dir ?? await Deno.makeTempDir({ prefix: "raw_libsql_" });
  try {
    const result = await rawLibsqlCeiling({
      dir,
      rows: Number(values.rows),
      concurrency: Number(values.concurrency),
      valueBytes: Number(values["value-bytes"]),
    });
    console.log(
      `raw @libsql/client, 1 row per durable transaction, c=${values.concurrency}: ` +
        `${result.rowsPerSecond.toFixed(0)} rows/s, p50 ${result.p50Ms.toFixed(3)} ms`,
    );
  } finally {
    if (!values.dir) await Deno.remove(dir, { recursive: true });
  }
}
