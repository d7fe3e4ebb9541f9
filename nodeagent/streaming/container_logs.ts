/**
 * `GET /containerLogs/{namespace}/{pod}/{container}`: a container's output read from its CRI
 * log file, with the kubelet's query parameters `follow`, `previous`, `tailLines`,
 * `sinceSeconds`, `sinceTime`, `timestamps` and `limitBytes`.
 *
 * @module
 */
import { StatusError } from "../../shared/errors/status_error.ts";
import type { StreamTarget } from "../runtime/stream_target.ts";

/** The parsed query of a log request. */
export interface LogOptions {
  follow: boolean;
  previous: boolean;
  tailLines?: number;
  /** Only records at or after this time (ms). */
  sinceMs?: number;
  timestamps: boolean;
  limitBytes?: number;
}

/** One record of a CRI log file. */
export interface LogRecord {
  /** The record's time as written (RFC 3339). */
  time: string;
  ms: number;
  /** The content, with its newline unless the record is partial. */
  content: Uint8Array;
  /** Whether the record ends a line. */
  full: boolean;
  /** The stream the record came from. */
  stream: "stdout" | "stderr";
}

const FOLLOW_POLL_MS = 200;
const encoder = new TextEncoder();

function positiveInt(q: URLSearchParams, name: string, min: number): number | undefined {
  const v = q.get(name);
  if (v === null || v === "") return undefined;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < min) {
    throw StatusError.badRequest(`invalid value for ${name}: ${JSON.stringify(v)}`);
  }
  return n;
}

function flag(q: URLSearchParams, name: string): boolean {
  const v = q.get(name);
  return v === "true" || v === "1";
}

/**
 * Parses a log request's query.
 *
 * @throws {StatusError} 400 for a malformed number or time.
 */
export function parseLogOptions(q: URLSearchParams, now: number): LogOptions {
  const o: LogOptions = {
    follow: flag(q, "follow"),
    previous: flag(q, "previous"),
    timestamps: flag(q, "timestamps"),
  };
  const tail = positiveInt(q, "tailLines", 0);
  if (tail !== undefined) o.tailLines = tail;
  const limit = positiveInt(q, "limitBytes", 1);
  if (limit !== undefined) o.limitBytes = limit;
  const since = positiveInt(q, "sinceSeconds", 1);
  if (since !== undefined) o.sinceMs = now - since * 1000;
  const sinceTime = q.get("sinceTime");
  if (sinceTime) {
    const t = Date.parse(sinceTime);
    if (Number.isNaN(t)) throw StatusError.badRequest(`invalid value for sinceTime: ${sinceTime}`);
    o.sinceMs = t;
  }
  return o;
}

/** Parses the complete records of `bytes`; returns them and how many bytes they used. */
export function parseRecords(bytes: Uint8Array): { records: LogRecord[]; used: number } {
  const records: LogRecord[] = [];
  let pos = 0;
  for (;;) {
    const nl = bytes.indexOf(0x0a, pos);
    if (nl < 0) break;
    const line = bytes.subarray(pos, nl);
    pos = nl + 1;
    const sp1 = line.indexOf(0x20);
    const sp2 = line.indexOf(0x20, sp1 + 1);
    const sp3 = line.indexOf(0x20, sp2 + 1);
    if (sp1 < 0 || sp2 < 0 || sp3 < 0) continue;
    const time = new TextDecoder().decode(line.subarray(0, sp1));
    const full = line[sp2 + 1] === 0x46; // "F"
    const body = line.subarray(sp3 + 1);
    const content = full ? new Uint8Array(body.length + 1) : body.slice();
    if (full) (content.set(body), content[body.length] = 0x0a);
    const stream = line[sp1 + 4] === 0x65 ? "stderr" : "stdout"; // std[e]rr
    records.push({ time, ms: Date.parse(time), content, full, stream });
  }
  return { records, used: pos };
}

/** The records of the last `n` lines. */
function tail(records: LogRecord[], n: number): LogRecord[] {
  let lines = 0;
  let i = records.length;
  // A trailing partial line counts as a line.
  if (i > 0 && !records[i - 1].full) lines = 1;
  while (i > 0) {
    if (records[i - 1].full) {
      if (lines === n) break;
      lines++;
    }
    i--;
  }
  return records.slice(i);
}

/** What a record is written as. */
function render(r: LogRecord, timestamps: boolean, lineStart: boolean): Uint8Array {
  if (!timestamps || !lineStart) return r.content;
  const prefix = encoder.encode(`${r.time} `);
  const out = new Uint8Array(prefix.length + r.content.length);
  out.set(prefix);
  out.set(r.content, prefix.length);
  return out;
}

/**
 * The log stream of a container as the response body.
 *
 * @throws {StatusError} 400 when the previous instance's log is asked for and there is none.
 */
export function containerLogStream(
  target: StreamTarget,
  opts: LogOptions,
  signal: AbortSignal,
  container: string,
): ReadableStream<Uint8Array> {
  const path = opts.previous ? target.previousLogPath : target.logPath;
  if (!path) {
    throw StatusError.badRequest(
      `previous terminated container "${container}" not found`,
    );
  }
  const follow = opts.follow && !opts.previous && target.running;
  let left = opts.limitBytes ?? Infinity;
  let lineStart = true;
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      const emit = (records: LogRecord[]) => {
        for (const r of records) {
          if (left <= 0) break;
          if (opts.sinceMs !== undefined && r.ms < opts.sinceMs) continue;
          let out = render(r, opts.timestamps, lineStart);
          lineStart = r.full;
          if (out.length > left) out = out.subarray(0, left);
          left -= out.length;
          controller.enqueue(out);
        }
      };
      try {
        await readLog(path, follow ? target.exited : undefined, signal, opts, emit, () => left > 0);
        controller.close();
      } catch (err) {
        if (signal.aborted) controller.close();
        else controller.error(err);
      }
    },
  });
}

/**
 * Reads the log file at `path`: first what is there (its last `tailLines` lines; none with
 * `tailLines: 0`), then, while `exited` has not resolved, what is appended.
 */
export async function readLog(
  path: string,
  exited: Promise<void> | undefined,
  signal: AbortSignal,
  opts: { tailLines?: number },
  emit: (records: LogRecord[]) => void | Promise<void>,
  wantsMore: () => boolean,
): Promise<void> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path);
  } catch {
    return;
  }
  try {
    let pending = new Uint8Array(0);
    let first = true;
    let done = false;
    exited?.then(() => done = true);
    for (;;) {
      const chunk = await readAll(file);
      const bytes = concat(pending, chunk);
      const { records, used } = parseRecords(bytes);
      pending = bytes.slice(used);
      await emit(first && opts.tailLines !== undefined ? tail(records, opts.tailLines) : records);
      first = false;
      if (!exited || !wantsMore() || signal.aborted) return;
      if (done) {
        // The instance exited: what it wrote last is in the file now.
        await emit(parseRecords(concat(pending, await readAll(file))).records);
        return;
      }
      await new Promise((r) => setTimeout(r, FOLLOW_POLL_MS));
    }
  } finally {
    file.close();
  }
}

async function readAll(file: Deno.FsFile): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  const buf = new Uint8Array(64 * 1024);
  for (;;) {
    const n = await file.read(buf);
    if (n === null || n === 0) break;
    parts.push(buf.slice(0, n));
  }
  return parts.reduce((a, b) => concat(a, b), new Uint8Array(0));
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (!a.length) return b;
  if (!b.length) return a;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
