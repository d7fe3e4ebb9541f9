/**
 * Logger: structured JSON-lines logging with klog-style verbosity and secret redaction.
 *
 * @module
 */
import { isSecretFieldName, REDACTED, redactValue, scrubSecrets } from "./redact.ts";

/** Severity of a log line. */
export type LogLevel = "info" | "warn" | "error";

/** Structured fields of a log line. */
export type LogFields = Readonly<Record<string, unknown>>;

/** Receives one complete JSON line (without the trailing newline). */
export type LogSink = (line: string) => void;

/** Options of {@link Logger}. */
export interface LoggerOptions {
  /** klog-style verbosity (`-v=N`); `v(n)` lines are written when `n <= verbosity`. Default 0. */
  verbosity?: number;
  /** Where lines go; default: stderr, one line per write. */
  sink?: LogSink;
  /** Clock for the `ts` field; default `() => new Date()`. */
  clock?: () => Date;
  /** Fields added to every line. */
  fields?: LogFields;
}

/** A logger bound to one verbosity level, as returned by {@link Logger.v}. */
export interface VerboseLogger {
  /** Whether lines at this level are written (skip building costly fields when false). */
  readonly enabled: boolean;
  /** Writes an info line at this verbosity when enabled. */
  info(msg: string, fields?: LogFields): void;
}

const RESERVED = new Set(["ts", "level", "v", "msg"]);
const encoder = new TextEncoder();

/** Writes a line to stderr, synchronously and completely. */
export function stderrSink(line: string): void {
  const bytes = encoder.encode(line + "\n");
  let off = 0;
  while (off < bytes.length) off += Deno.stderr.writeSync(bytes.subarray(off));
}

interface Core {
  verbosity: number;
  sink: LogSink;
  clock: () => Date;
  lastWriteError: Error | undefined;
}

/**
 * Parses a `-v` value: a non-negative integer.
 *
 * @throws {RangeError} when the value is not one.
 */
export function parseVerbosity(value: string): number {
  const n = Number(value.trim());
  if (value.trim() === "" || !Number.isInteger(n) || n < 0 || n > 2 ** 31 - 1) {
    throw new RangeError(`invalid verbosity "${value}": want a non-negative integer`);
  }
  return n;
}

/**
 * A structured logger. Each line is one JSON object,
 * `{"ts":"<RFC 3339>","level":"info","v":2,"msg":"...",...fields}` (`v` only above 0).
 * Fields under secret-bearing names (see {@link isSecretFieldName}) are written as
 * `"[redacted]"` at any depth, and credential-shaped text in any string is masked, so a token
 * never reaches the output. A failing sink never throws into the caller.
 *
 * @example
 * ```ts
 * const log = new Logger({ verbosity: 2 });
 * log.v(2).info("request", { verb: "GET", path: "/api/v1/pods", code: 200 });
 * ```
 */
export class Logger {
  #core: Core;
  #fields: LogFields;

  /** Creates a logger. */
  constructor(options: LoggerOptions = {}) {
    this.#core = {
      verbosity: Math.max(0, Math.trunc(options.verbosity ?? 0)),
      sink: options.sink ?? stderrSink,
      clock: options.clock ?? (() => new Date()),
      lastWriteError: undefined,
    };
    this.#fields = options.fields ?? {};
  }

  /** The current verbosity, shared with every logger derived through {@link Logger.with}. */
  get verbosity(): number {
    return this.#core.verbosity;
  }

  set verbosity(level: number) {
    this.#core.verbosity = Math.max(0, Math.trunc(level));
  }

  /** The error of the last write if it failed, else undefined (for the `log` health check). */
  get lastWriteError(): Error | undefined {
    return this.#core.lastWriteError;
  }

  /** A logger writing the given fields on every line, sharing sink and verbosity. */
  with(fields: LogFields): Logger {
    const child = new Logger();
    child.#core = this.#core;
    child.#fields = { ...this.#fields, ...fields };
    return child;
  }

  /** The logger for verbosity `level`, like klog's `V(level)`. */
  v(level: number): VerboseLogger {
    const enabled = level <= this.#core.verbosity;
    return {
      enabled,
      info: (msg, fields) => {
        if (enabled) this.#write("info", level, msg, fields);
      },
    };
  }

  /** Writes an info line (verbosity 0). */
  info(msg: string, fields?: LogFields): void {
    this.#write("info", 0, msg, fields);
  }

  /** Writes a warning line. */
  warn(msg: string, fields?: LogFields): void {
    this.#write("warn", 0, msg, fields);
  }

  /** Writes an error line; an `err` field holding an Error is written as its message. */
  error(msg: string, fields?: LogFields): void {
    this.#write("error", 0, msg, fields);
  }

  #write(level: LogLevel, v: number, msg: string, fields?: LogFields): void {
    try {
      const line: Record<string, unknown> = { ts: this.#core.clock().toISOString(), level };
      if (v > 0) line.v = v;
      line.msg = scrubSecrets(String(msg));
      for (const source of [this.#fields, fields ?? {}]) {
        for (const [k, value] of Object.entries(source)) {
          const key = RESERVED.has(k) ? `field.${k}` : k;
          if (isSecretFieldName(k)) line[key] = REDACTED;
          else {
            const r = redactValue(value);
            if (r !== undefined) line[key] = r;
          }
        }
      }
      this.#core.sink(JSON.stringify(line));
      this.#core.lastWriteError = undefined;
    } catch (err) {
      this.#core.lastWriteError = err instanceof Error ? err : new Error(String(err));
    }
  }
}
