/**
 * A watch benchmark client: a subprocess that holds many watch streams on one server and
 * records, for every event, its resourceVersion and when its bytes were read. Run by
 * `scripts/bench/watch.ts` (several of them, so the clients' TLS and parsing are spread over
 * processes instead of one event loop). Talks JSON lines: the first stdin line is a
 * {@link WatchClientConfig}, then {@link WatchClientCommand}s; each gets one reply on stdout.
 *
 * Two protocols (`WatchClientConfig.protocol`):
 * - `h2`, as client-go does: all of the process's watches are streams of one HTTP/2
 *   connection, framed by {@link ./h2_watch_connection.ts} (with the server's own HPACK module);
 * - `http/1.1`: each watch is a request on its own TLS connection, its chunked body decoded
 *   by {@link ./watch_stream.ts}.
 *
 * Both are read with `Deno.connectTls` rather than `fetch`: on a 2-core machine the clients
 * share the CPU with the server, and `fetch` cost about 6 µs per event against 3.7 µs for the
 * HTTP/1.1 reader, which left less CPU to the server and doubled the measured latency.
 *
 * Times are `performance.timeOrigin + performance.now()` (ms since the epoch, sub-ms
 * precision), comparable across processes; the `ping` reply lets the parent measure the
 * offset between the two clocks.
 *
 * Usage (by the benchmark): ./scripts/deno run -A scripts/bench/lib/watch_client.ts
 *
 * @module
 */
import { H2WatchConnection } from "./h2_watch_connection.ts";
import { jsonLine, readJsonLines } from "./json_lines.ts";
import { wallNow } from "./wall_now.ts";
import { WatchStream } from "./watch_stream.ts";

/** Where and how to connect (sent on stdin, never on the command line: it holds secrets). */
export interface WatchClientConfig {
  /** `https://host:port`. */
  url: string;
  caPem: string;
  /** Bearer token (secret). */
  token?: string;
  clientCertPem?: string;
  /** Secret. */
  clientKeyPem?: string;
  /** The collection to watch, e.g. `/api/v1/namespaces/bench/configmaps`. */
  path: string;
  /** `h2` (one connection per client process, one stream per watch) or `http/1.1`. */
  protocol: "h2" | "http/1.1";
}

/** One acknowledged write: its resourceVersion, when it was sent and when its response arrived. */
export type AckedWrite = [revision: number, sentAt: number, ackedAt: number];

/** Commands of the parent. */
export type WatchClientCommand =
  | { op: "ping" }
  | { op: "open"; count: number; resourceVersion: string }
  | { op: "finish"; writes: AckedWrite[]; timeoutMs: number; outFile: string }
  | { op: "exit" };

/** Reply to `finish`. */
export interface FinishReply {
  watchers: number;
  /** Events received (all watchers). */
  received: number;
  /** Watchers that did not receive exactly the acknowledged writes. */
  missing: number;
  /** Watchers that received an event with a resourceVersion not above the previous one. */
  reordered: number;
  /** Watchers whose stream the server ended early. */
  ended: number;
  /** When each of them ended (ms since the epoch). */
  endedAt: number[];
  /** Events that match no acknowledged write. */
  unknown: number;
  /** Watchers whose connection failed, and the first failure. */
  failed: number;
  firstError?: string;
  /** Earliest and latest receipt times (ms since the epoch). */
  firstAt: number;
  lastAt: number;
  /**
   * Values in `outFile`, float64: `latencies` values of receipt − ack, `latencies` values of
   * receipt − send (ms), then per acknowledged write (in the order given) the earliest and
   * then the latest receipt time among this client's watchers (NaN when none received it),
   * then `survivorLatencies` values of receipt − ack of the watchers the server did not end.
   */
  latencies: number;
  survivorLatencies: number;
}
async function main(): Promise<void> {
  const input = readJsonLines(Deno.stdin.readable);
  const out = Deno.stdout.writable.getWriter();
  const reply = (value: unknown) => out.write(jsonLine(value));
  const first = await input.next();
  if (first.done) return;
  const cfg = first.value as WatchClientConfig;
  const url = new URL(cfg.url);
  const port = Number(url.port || 443);
  const hostname = url.hostname.replace(/^\[|\]$/g, "");
  const auth = cfg.token ? `Authorization: Bearer ${cfg.token}\r\n` : "";
  let watches: WatchStream[] = [];
  let h2: H2WatchConnection | undefined;

  let connecting: Promise<H2WatchConnection> | undefined;
  const connectH2 = async (): Promise<H2WatchConnection> => {
    const conn = await Deno.connectTls({
      hostname,
      port,
      caCerts: [cfg.caPem],
      alpnProtocols: ["h2"],
      ...(cfg.clientCertPem && cfg.clientKeyPem
        ? { cert: cfg.clientCertPem, key: cfg.clientKeyPem }
        : {}),
    });
    if ((await conn.handshake()).alpnProtocol !== "h2") {
      throw new Error("the server does not speak h2");
    }
    return h2 = new H2WatchConnection(conn);
  };

  const openH2 = async (rv: string): Promise<WatchStream> => {
    // One connection for all of this process's watches, as client-go shares its transport.
    const h2 = await (connecting ??= connectH2());
    const w = new WatchStream();
    await h2.open(w, [
      ":method",
      "GET",
      ":scheme",
      "https",
      ":path",
      `${cfg.path}?watch=1&resourceVersion=${rv}`,
      ":authority",
      url.host,
      "accept",
      "application/json",
      "user-agent",
      "watch-bench",
      ...(cfg.token ? ["authorization", `Bearer ${cfg.token}`] : []),
    ]);
    return w;
  };

  const open = async (rv: string): Promise<WatchStream> => {
    if (cfg.protocol === "h2") return await openH2(rv);
    const w = new WatchStream();
    const conn = await Deno.connectTls({
      hostname,
      port,
      caCerts: [cfg.caPem],
      ...(cfg.clientCertPem && cfg.clientKeyPem
        ? { cert: cfg.clientCertPem, key: cfg.clientKeyPem }
        : {}),
    });
    const request = new TextEncoder().encode(
      `GET ${cfg.path}?watch=1&resourceVersion=${rv} HTTP/1.1\r\nHost: ${url.host}\r\n` +
        `Accept: application/json\r\nUser-Agent: watch-bench\r\n${auth}\r\n`,
    );
    await w.open(conn, request);
    return w;
  };

  for await (const raw of input) {
    const cmd = raw as WatchClientCommand;
    try {
      if (cmd.op === "ping") {
        await reply({ now: wallNow() });
      } else if (cmd.op === "open") {
        for (let i = 0; i < cmd.count; i += 50) {
          const n = Math.min(50, cmd.count - i);
          watches.push(
            ...await Promise.all(Array.from({ length: n }, () => open(cmd.resourceVersion))),
          );
        }
        await reply({ opened: watches.length });
      } else if (cmd.op === "finish") {
        const result = await finish(watches, cmd.writes, cmd.timeoutMs, cmd.outFile);
        h2?.close();
        await h2?.done;
        h2 = undefined;
        connecting = undefined;
        await reply(result);
        watches = [];
      } else if (cmd.op === "exit") {
        break;
      }
    } catch (err) {
      await reply({ error: err instanceof Error ? err.message : String(err) });
    }
  }
  await Promise.all(watches.map((w) => w.stop()));
  h2?.close();
  await out.close();
}

/** Waits for the last write to reach every watcher, then checks and measures. */
async function finish(
  watches: WatchStream[],
  writes: AckedWrite[],
  timeoutMs: number,
  outFile: string,
): Promise<FinishReply> {
  const byRv = new Map<number, number>();
  writes.forEach(([rv], i) => byRv.set(rv, i));
  const lastRv = writes.reduce((m, [rv]) => Math.max(m, rv), 0);
  const deadline = performance.now() + timeoutMs;
  while (
    performance.now() < deadline &&
    watches.some((w) => !w.ended && w.error === undefined && w.lastRv < lastRv)
  ) {
    await new Promise((r) => setTimeout(r, 50));
  }
  await Promise.all(watches.map((w) => w.stop()));

  let received = 0;
  for (const w of watches) received += w.events.n;
  const lat = new Float64Array(received * 2);
  const survivors: number[] = [];
  const endedAt: number[] = [];
  let k = 0;
  let missing = 0;
  let reordered = 0;
  let ended = 0;
  let unknown = 0;
  let failed = 0;
  let firstError: string | undefined;
  let firstAt = Infinity;
  let lastAt = -Infinity;
  const earliest = new Float64Array(writes.length).fill(NaN);
  const latest = new Float64Array(writes.length).fill(NaN);
  for (const w of watches) {
    if (w.reordered) reordered++;
    if (w.ended) {
      ended++;
      endedAt.push(w.endedAt);
    }
    if (w.error !== undefined) {
      failed++;
      firstError ??= w.error;
    }
    const seen = new Set<number>();
    const { rv, at, n } = w.events;
    for (let i = 0; i < n; i++) {
      const idx = byRv.get(rv[i]);
      if (idx === undefined) {
        unknown++;
        continue;
      }
      seen.add(rv[i]);
      const [, sentAt, ackedAt] = writes[idx];
      lat[k] = at[i] - ackedAt;
      lat[received + k] = at[i] - sentAt;
      if (!w.ended && w.error === undefined) survivors.push(at[i] - ackedAt);
      k++;
      if (at[i] < firstAt) firstAt = at[i];
      if (at[i] > lastAt) lastAt = at[i];
      if (!(at[i] >= earliest[idx])) earliest[idx] = at[i];
      if (!(at[i] <= latest[idx])) latest[idx] = at[i];
    }
    if (seen.size !== writes.length || n !== writes.length) missing++;
  }
  // Only the matched latencies (k of them) in both halves, then the receipt ranges.
  const kept = new Float64Array(k * 2 + writes.length * 2 + survivors.length);
  kept.set(lat.subarray(0, k), 0);
  kept.set(lat.subarray(received, received + k), k);
  kept.set(earliest, k * 2);
  kept.set(latest, k * 2 + writes.length);
  kept.set(survivors, k * 2 + writes.length * 2);
  await Deno.writeFile(outFile, new Uint8Array(kept.buffer));
  return {
    watchers: watches.length,
    received,
    missing,
    reordered,
    ended,
    endedAt,
    unknown,
    failed,
    firstError,
    firstAt,
    lastAt,
    latencies: k,
    survivorLatencies: survivors.length,
  };
}

if (import.meta.main) await main();
