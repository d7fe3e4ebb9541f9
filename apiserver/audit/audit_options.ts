/**
 * The audit flags: `--audit-policy-file`, `--audit-log-path` (`-` for standard output),
 * `--audit-log-format` (json, legacy), `--audit-log-maxage`, `--audit-log-maxbackup`,
 * `--audit-log-maxsize`, validated with the other flags (every problem at once). The policy
 * file is read and checked here, so a bad policy stops the server before it starts.
 *
 * @module
 */
import { tryParseDurationMs } from "../../shared/time/duration.ts";
import type { AuditLogFormat } from "./log_backend.ts";
import { type AuditPolicy, parseAuditPolicy } from "./policy.ts";

/** The parsed audit options; absent when auditing is off. */
export interface AuditOptions {
  policy: AuditPolicy;
  /** The log backend, when `--audit-log-path` is given. */
  log?: {
    path: string;
    format: AuditLogFormat;
    maxAgeDays: number;
    maxBackups: number;
    maxSizeMB: number;
  };
  /** The webhook backend, when `--audit-webhook-config-file` is given. */
  webhook?: {
    configFile: string;
    mode: "batch" | "blocking";
    maxBatchSize: number;
    maxBatchWaitMs: number;
    initialBackoffMs: number;
  };
}

/** Help text of the flags. */
export const AUDIT_FLAG_HELP: Record<string, string> = {
  "audit-policy-file": "audit.k8s.io/v1 Policy file; without it nothing is audited",
  "audit-log-path": "file audit events are appended to ('-' for standard output)",
  "audit-log-format": "json (one Event per line, default) or legacy (one text line per event)",
  "audit-log-maxage": "days rotated audit log files are kept (default 0: no limit)",
  "audit-log-maxbackup": "rotated audit log files kept (default 0: no limit)",
  "audit-log-maxsize": "megabytes after which the audit log rotates (default 0: 100)",
  "audit-webhook-config-file": "kubeconfig of the webhook audit events are POSTed to",
  "audit-webhook-mode": "batch (default) or blocking (each event sent at once)",
  "audit-webhook-batch-max-size": "events in one webhook batch at most (default 400)",
  "audit-webhook-batch-max-wait": "how long a webhook batch waits to fill (default 30s)",
  "audit-webhook-initial-backoff": "wait before retrying a failed webhook POST (default 10s)",
};

/** The parseArgs option declarations of the flags. */
export const AUDIT_PARSE_OPTIONS = {
  "audit-policy-file": { type: "string" },
  "audit-log-path": { type: "string" },
  "audit-log-format": { type: "string" },
  "audit-log-maxage": { type: "string" },
  "audit-log-maxbackup": { type: "string" },
  "audit-log-maxsize": { type: "string" },
  "audit-webhook-config-file": { type: "string" },
  "audit-webhook-mode": { type: "string" },
  "audit-webhook-batch-max-size": { type: "string" },
  "audit-webhook-batch-max-wait": { type: "string" },
  "audit-webhook-initial-backoff": { type: "string" },
} as const;

/** Builds the options from flag values, pushing every problem onto `errors`. */
export function auditOptionsFromFlags(
  values: Record<string, unknown>,
  errors: string[],
): AuditOptions | undefined {
  const str = (k: string) => typeof values[k] === "string" ? values[k] as string : undefined;
  const format = str("audit-log-format") ?? "json";
  if (format !== "json" && format !== "legacy") {
    errors.push(
      `--audit-log-format: invalid audit log format ${JSON.stringify(format)}, ` +
        `allowed formats are "json,legacy"`,
    );
  }
  const count = (flag: string) => {
    const text = str(flag) ?? "0";
    const n = Number(text);
    if (!/^\d+$/.test(text) || !Number.isSafeInteger(n)) {
      errors.push(`--${flag}: must be a non-negative integer, got ${JSON.stringify(text)}`);
    }
    return n;
  };
  const maxAgeDays = count("audit-log-maxage");
  const maxBackups = count("audit-log-maxbackup");
  const maxSizeMB = count("audit-log-maxsize");
  const webhook = webhookOptions(str, count, errors);
  const policyFile = str("audit-policy-file");
  const path = str("audit-log-path");
  if (policyFile === undefined) return undefined;
  let policy: AuditPolicy | undefined;
  try {
    policy = parseAuditPolicy(Deno.readTextFileSync(policyFile));
  } catch (err) {
    errors.push(`--audit-policy-file: ${policyFile}: ${(err as Error).message}`);
  }
  if (!policy) return undefined;
  return {
    policy,
    ...(webhook ? { webhook } : {}),
    ...(path
      ? { log: { path, format: format as AuditLogFormat, maxAgeDays, maxBackups, maxSizeMB } }
      : {}),
  };
}

function webhookOptions(
  str: (k: string) => string | undefined,
  count: (flag: string) => number,
  errors: string[],
): AuditOptions["webhook"] {
  const mode = str("audit-webhook-mode") ?? "batch";
  if (mode !== "batch" && mode !== "blocking") {
    errors.push(
      `--audit-webhook-mode: invalid audit webhook mode ${JSON.stringify(mode)}, ` +
        `allowed modes are "batch,blocking"`,
    );
  }
  const duration = (flag: string, fallback: string) => {
    const ms = tryParseDurationMs(str(flag) ?? fallback);
    if (ms === undefined || ms <= 0) {
      errors.push(
        `--${flag}: must be a positive duration such as ${fallback}, got ${
          JSON.stringify(str(flag))
        }`,
      );
    }
    return ms ?? 0;
  };
  const maxBatchSize = str("audit-webhook-batch-max-size") === undefined
    ? 400
    : count("audit-webhook-batch-max-size");
  const maxBatchWaitMs = duration("audit-webhook-batch-max-wait", "30s");
  const initialBackoffMs = duration("audit-webhook-initial-backoff", "10s");
  const configFile = str("audit-webhook-config-file");
  if (configFile === undefined) return undefined;
  return {
    configFile,
    mode: mode as "batch" | "blocking",
    maxBatchSize,
    maxBatchWaitMs,
    initialBackoffMs,
  };
}
