/**
 * The audit log backend (`--audit-log-path`): one line per event, as JSON (an audit.k8s.io/v1
 * Event) or in kube's legacy text form, to a rotating file or, for `-`, to standard output.
 *
 * @module
 */
import type { AuditEvent } from "./event.ts";
import { RotatingFile } from "./rotating_file.ts";

/** Where events go. */
export interface AuditBackend {
  /** Records one event; never throws, never waits. */
  write(event: AuditEvent): void;
  /** Writes what is queued and releases the backend. */
  close(): Promise<void>;
}

/** `--audit-log-format`. */
export type AuditLogFormat = "json" | "legacy";

/** Options of {@link logBackend}. */
export interface LogBackendOptions {
  /** A file, or `-` for standard output. */
  path: string;
  format: AuditLogFormat;
  maxAgeDays: number;
  maxBackups: number;
  maxSizeMB: number;
  onError?: (err: Error) => void;
}

/** The audit log backend of `opts`. */
export function logBackend(opts: LogBackendOptions): AuditBackend {
  const format = opts.format === "legacy" ? legacyLine : jsonLine;
  if (opts.path === "-") return stdoutBackend(format);
  const file = new RotatingFile({
    path: opts.path,
    maxSizeMB: opts.maxSizeMB,
    maxBackups: opts.maxBackups,
    maxAgeDays: opts.maxAgeDays,
    onError: opts.onError,
  });
  return {
    write: (event) => file.write(format(event)),
    close: () => file.close(),
  };
}

function stdoutBackend(format: (e: AuditEvent) => string): AuditBackend {
  const encoder = new TextEncoder();
  let chain = Promise.resolve();
  return {
    write(event) {
      const bytes = encoder.encode(format(event));
      chain = chain.then(async () => {
        let off = 0;
        while (off < bytes.length) off += await Deno.stdout.write(bytes.subarray(off));
      }).catch(() => {});
    },
    close: () => chain,
  };
}

/** An event as one JSON line. */
export function jsonLine(event: AuditEvent): string {
  return JSON.stringify(event) + "\n";
}

/** Go's %q of a string, close enough for the legacy format (JSON string quoting). */
const q = (s: string) => JSON.stringify(s);

/** kube's legacy audit line. */
export function legacyLine(e: AuditEvent): string {
  const groups = (e.user.groups ?? []).map(q).join(",");
  const as = e.impersonatedUser?.username ?? "<self>";
  const asGroups = e.impersonatedUser
    ? (e.impersonatedUser.groups ?? []).map(q).join(",")
    : "<lookup>";
  const response = e.responseStatus ? String(e.responseStatus.code) : "<deferred>";
  return `${e.requestReceivedTimestamp} AUDIT: id=${q(e.auditID)} stage=${q(e.stage)} ` +
    `ip=${q(e.sourceIPs?.[0] ?? "unknown")} method=${q(e.verb)} user=${q(e.user.username)} ` +
    `groups=${q(groups)} as=${q(as)} asgroups=${q(asGroups)} user-agent=${q(e.userAgent ?? "")} ` +
    `namespace=${q(e.objectRef?.namespace ?? "<none>")} uri=${q(e.requestURI)} ` +
    `response="${response}"\n`;
}
