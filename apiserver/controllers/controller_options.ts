/**
 * The controller flags of the API server, kube-controller-manager's: `--controllers`,
 * `--cluster-signing-duration` (default 8760h) and `--auto-approve-node-serving`.
 *
 * @module
 */
import { tryParseDurationMs } from "../../shared/time/duration.ts";
import { type ControllerSelection, parseControllers } from "./controller_selection.ts";
import {
  LEADER_ELECTION_FLAG_HELP,
  LEADER_ELECTION_PARSE_OPTIONS,
  leaderElectionFromFlags,
  type LeaderElectionOptions,
  normalizeLeaderElectFlag,
} from "./leader/leader_election_options.ts";

/** The controller options. */
export interface ControllerOptions {
  /** Which controllers run. */
  selection: ControllerSelection;
  /** The longest validity of certificates the CSR signer issues, ms. */
  clusterSigningDurationMs: number;
  /** Whether nodes' serving certificate requests are approved without an administrator. */
  autoApproveNodeServing: boolean;
  /** Whether and how the controllers and the scheduler elect a leader. */
  leaderElection: LeaderElectionOptions;
  /** Terminated pods kept before the pod GC deletes the oldest (`--terminated-pod-gc-threshold`). */
  terminatedPodGcThreshold: number;
}

/** The flags' help. */
export const CONTROLLER_FLAG_HELP: Record<string, string> = {
  "controllers":
    "controllers to run: * (the defaults), name, -name; bootstrapsigner and tokencleaner are off by default",
  "cluster-signing-duration":
    "longest validity of certificates issued for CertificateSigningRequests (default 8760h)",
  "auto-approve-node-serving":
    "approve a node's requests for its own serving certificate without an administrator (default false)",
  "terminated-pod-gc-threshold":
    "terminated pods kept before the oldest are deleted; 0 or less keeps all (default 12500)",
  ...LEADER_ELECTION_FLAG_HELP,
};

/** The parseArgs specs of the flags. */
export const CONTROLLER_PARSE_OPTIONS = {
  "controllers": { type: "string" },
  "cluster-signing-duration": { type: "string" },
  "auto-approve-node-serving": { type: "string" },
  "terminated-pod-gc-threshold": { type: "string" },
  ...LEADER_ELECTION_PARSE_OPTIONS,
} as const;

/** Rewrites a bare `--auto-approve-node-serving` to `=true`. */
export function normalizeControllerBoolFlags(args: string[]): string[] {
  return normalizeLeaderElectFlag(args).map((a) =>
    a === "--auto-approve-node-serving" ? `${a}=true` : a
  );
}

/** The controller options of the flag values; problems go to `errors`. */
export function controllerOptionsFromFlags(
  values: Record<string, unknown>,
  errors: string[],
): ControllerOptions {
  const selection = parseControllers(values["controllers"] as string | undefined, errors);
  const durationText = (values["cluster-signing-duration"] as string | undefined) ?? "8760h";
  const ms = tryParseDurationMs(durationText);
  if (ms === undefined || ms <= 0) {
    errors.push(
      `--cluster-signing-duration: must be a positive duration such as 8760h, got ${
        JSON.stringify(durationText)
      }`,
    );
  }
  const approve = (values["auto-approve-node-serving"] as string | undefined) ?? "false";
  if (approve !== "true" && approve !== "false") {
    errors.push(
      `--auto-approve-node-serving: must be true or false, got ${JSON.stringify(approve)}`,
    );
  }
  const gcText = (values["terminated-pod-gc-threshold"] as string | undefined) ?? "12500";
  if (!/^-?\d+$/.test(gcText)) {
    errors.push(`--terminated-pod-gc-threshold: must be an integer, got ${JSON.stringify(gcText)}`);
  }
  return {
    selection,
    clusterSigningDurationMs: ms ?? 0,
    autoApproveNodeServing: approve === "true",
    leaderElection: leaderElectionFromFlags(values, errors),
    terminatedPodGcThreshold: Number(gcText) || 0,
  };
}
