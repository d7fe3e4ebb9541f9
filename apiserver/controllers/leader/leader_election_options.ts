/**
 * kube-controller-manager's leader election flags: `--leader-elect` (default true),
 * `--leader-elect-lease-duration` (15s), `--leader-elect-renew-deadline` (10s),
 * `--leader-elect-retry-period` (2s), `--leader-elect-resource-name` (kube-controller-manager)
 * and `--leader-elect-resource-namespace` (kube-system). The scheduler's Lease is
 * `kube-scheduler` in the same namespace, with the same timing.
 *
 * @module
 */
import { tryParseDurationMs } from "../../../shared/time/duration.ts";
import type { ElectionTiming } from "./leader_elector.ts";

/** The election settings. */
export interface LeaderElectionOptions extends ElectionTiming {
  enabled: boolean;
  /** The controllers' Lease name. */
  resourceName: string;
  resourceNamespace: string;
  /** This server's identity, `<hostname>_<uuid>`. */
  identity: string;
}

/** The flags' help. */
export const LEADER_ELECTION_FLAG_HELP: Record<string, string> = {
  "leader-elect":
    "run the controllers and the scheduler only while holding their Lease in kube-system (default true)",
  "leader-elect-lease-duration":
    "how long a candidate waits after the leader's last renewal before taking over (default 15s)",
  "leader-elect-renew-deadline":
    "how long the leader retries renewing before it stops leading (default 10s)",
  "leader-elect-retry-period": "how often candidates try to acquire or renew (default 2s)",
  "leader-elect-resource-name": "the controllers' Lease (default kube-controller-manager)",
  "leader-elect-resource-namespace": "namespace of the Leases (default kube-system)",
};

/** The parseArgs specs of the flags. */
export const LEADER_ELECTION_PARSE_OPTIONS = {
  "leader-elect": { type: "string" },
  "leader-elect-lease-duration": { type: "string" },
  "leader-elect-renew-deadline": { type: "string" },
  "leader-elect-retry-period": { type: "string" },
  "leader-elect-resource-name": { type: "string" },
  "leader-elect-resource-namespace": { type: "string" },
} as const;

/** Rewrites a bare `--leader-elect` to `=true`. */
export function normalizeLeaderElectFlag(args: string[]): string[] {
  return args.map((a) => a === "--leader-elect" ? `${a}=true` : a);
}

/** The election settings of the flag values; problems go to `errors`. */
export function leaderElectionFromFlags(
  values: Record<string, unknown>,
  errors: string[],
): LeaderElectionOptions {
  const duration = (flag: string, fallback: string) => {
    const text = (values[flag] as string | undefined) ?? fallback;
    const ms = tryParseDurationMs(text);
    if (ms === undefined || ms <= 0) {
      errors.push(`--${flag}: must be a positive duration such as ${fallback}, got "${text}"`);
      return 0;
    }
    return ms;
  };
  const elect = (values["leader-elect"] as string | undefined) ?? "true";
  if (elect !== "true" && elect !== "false") {
    errors.push(`--leader-elect: must be true or false, got "${elect}"`);
  }
  const opts: LeaderElectionOptions = {
    enabled: elect !== "false",
    leaseDurationMs: duration("leader-elect-lease-duration", "15s"),
    renewDeadlineMs: duration("leader-elect-renew-deadline", "10s"),
    retryPeriodMs: duration("leader-elect-retry-period", "2s"),
    resourceName: (values["leader-elect-resource-name"] as string | undefined) ??
      "kube-controller-manager",
    resourceNamespace: (values["leader-elect-resource-namespace"] as string | undefined) ??
      "kube-system",
    identity: `${Deno.hostname()}_${crypto.randomUUID()}`,
  };
  // kube-controller-manager's checks.
  if (opts.renewDeadlineMs && opts.leaseDurationMs <= opts.renewDeadlineMs) {
    errors.push("--leader-elect-lease-duration must be greater than --leader-elect-renew-deadline");
  }
  if (opts.retryPeriodMs && opts.renewDeadlineMs <= opts.retryPeriodMs * 1.2) {
    errors.push(
      "--leader-elect-renew-deadline must be greater than 1.2 × --leader-elect-retry-period",
    );
  }
  return opts;
}
