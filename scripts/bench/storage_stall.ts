/**
 * Event-loop lag under sustained durable write load through {@link LibsqlStorage}. The driver
 * is synchronous underneath, so a commit's fsync runs on the main thread unless a slow commit
 * has sent the commits to the write worker; this measures what that costs the rest of the
 * process. Idle and loaded phases alternate (A B A B…) so the
 * VM's own pauses show up in both and the ratio is taken within one run:
 *
 *   ./scripts/deno run -A scripts/bench/storage_stall.ts [--seconds=8] [--rounds=3] [--writers=16]
 *
 * @module
 */
import { parseArgs } from "node:util";
import { LibsqlStorage } from "../../apiserver/storage/libsql/libsql_storage.ts";

/** Options of {@link storageStall}. */
export interface StorageStallOptions {
  /** Directory for the throwaway database. */
  dir: string;
  /** Seconds per phase. */
  seconds: number;
  /** Idle/loaded phase pairs. */
  rounds: number;
  /** Concurrent writers during the loaded phase. */
  writers: number;
  /** Bytes per value. */
  valueBytes: number;
}

/** Lag statistics of one phase, in ms beyond the probe's 10 ms interval. */
export interface LagStats {
  p50: number;
  p99: number;
  max: number;
  /** Writes committed per second during the phase (0 when idle). */
  writesPerSecond: number;
}

/** Result of {@link storageStall}: one entry per phase, in order. */
export interface StorageStallResult {
  idle: LagStats[];
  loaded: LagStats[];
}

const PROBE_MS = 10;

/** Runs the alternating idle/loaded phases and returns the lag of each. */
export async function storageStall(opts: StorageStallOptions): Promise<StorageStallResult> {
  const storage = await LibsqlStorage.open({
    url: `file:${opts.dir}/stall.db`,
    maintenanceIntervalMs: 1000,
  });
  const value = "v".repeat(opts.valueBytes);
  const result: StorageStallResult = { idle: [], loaded: [] };
  let seq = 0;
  try {
    for (let round = 0; round < opts.rounds; round++) {
      result.idle.push(await phase(opts.seconds, () => Promise.resolve(0)));
      result.loaded.push(
        await phase(opts.seconds, async (until) => {
          let writes = 0;
          const writer = async () => {
            while (performance.now() < until) {
              const key = `/registry/stall/${seq++ % 2000}`;
              const cur = await storage.get(key);
              if (cur) await storage.update(key, value, cur.revision).catch(() => {});
              else await storage.create(key, value).catch(() => {});
              writes++;
            }
          };
          await Promise.all(Array.from({ length: opts.writers }, writer));
          return writes;
        }),
      );
    }
  } finally {
    await storage.close();
  }
  return result;
}

/** Runs `load` for `seconds` while a 10 ms timer records how late it fires. */
async function phase(
  seconds: number,
  load: (until: number) => Promise<number>,
): Promise<LagStats> {
  const lags: number[] = [];
  let last = performance.now();
  const probe = setInterval(() => {
    const now = performance.now();
    lags.push(Math.max(0, now - last - PROBE_MS));
    last = now;
  }, PROBE_MS);
  const start = performance.now();
  const until = start + seconds * 1000;
  let writes = await load(until);
  if (writes === 0) await new Promise((resolve) => setTimeout(resolve, until - performance.now()));
  const elapsed = (performance.now() - start) / 1000;
  clearInterval(probe);
  lags.sort((a, b) => a - b);
  const at = (q: number) => lags[Math.min(lags.length - 1, Math.floor(lags.length * q))] ?? 0;
  writes = Math.max(0, writes);
  return { p50: at(0.5), p99: at(0.99), max: lags.at(-1) ?? 0, writesPerSecond: writes / elapsed };
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      seconds: { type: "string", default: "8" },
      rounds: { type: "string", default: "3" },
      writers: { type: "string", default: "16" },
      "value-bytes": { type: "string", default: "1024" },
    },
  });
  const dir = await Deno.makeTempDir({ prefix: "storage_stall_" });
  try {
    const r = await storageStall({
      dir,
      seconds: Number(values.seconds),
      rounds: Number(values.rounds),
      writers: Number(values.writers),
      valueBytes: Number(values["value-bytes"]),
    });
    const fmt = (s: LagStats) =>
      `lag p50 ${s.p50.toFixed(2)} ms, p99 ${s.p99.toFixed(1)} ms, max ${s.max.toFixed(0)} ms` +
      (s.writesPerSecond ? `, ${s.writesPerSecond.toFixed(0)} writes/s` : "");
    r.idle.forEach((idle, i) => {
      console.log(`round ${i + 1} idle:   ${fmt(idle)}`);
      console.log(`round ${i + 1} loaded: ${fmt(r.loaded[i])}`);
      console.log(
        `round ${i + 1} loaded/idle p99 ratio: ${
          (r.loaded[i].p99 / Math.max(idle.p99, 0.01)).toFixed(2)
        }`,
      );
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
