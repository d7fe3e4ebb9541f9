/**
 * The Pod Security evaluator: which checks apply at a level and policy version, in kube's
 * order (baseline checks by ID, then restricted ones by ID; a restricted check may override
 * baseline ones, which then do not run at the restricted level), and the aggregate of their
 * results (`reason (detail), reason, ...`), as k8s.io/pod-security-admission 1.32.
 *
 * @module
 */
import * as base from "./baseline_checks.ts";
import type { CheckPod, CheckResult, Obj } from "./check_result.ts";
import * as strict from "./restricted_checks.ts";
import type { LevelVersion, Version } from "./policy.ts";

/** One form of a check, from a policy version on. */
interface VersionedCheck {
  /** The first policy minor this form applies to. */
  since: number;
  check: CheckPod;
  /** Baseline check IDs this restricted form replaces. */
  overrides?: readonly string[];
}

/** A check with every form it had. */
interface Check {
  id: string;
  level: "baseline" | "restricted";
  versions: readonly VersionedCheck[];
}

const CAPS = ["capabilities_baseline"], HOST_PATH = ["hostPathVolumes"];
const SECCOMP = ["seccompProfile_baseline"];

/** Every check of the default set, with its forms by version. */
export const CHECKS: readonly Check[] = [
  {
    id: "appArmorProfile",
    level: "baseline",
    versions: [{ since: 0, check: base.appArmorProfile }],
  },
  {
    id: "capabilities_baseline",
    level: "baseline",
    versions: [{ since: 0, check: base.capabilitiesBaseline }],
  },
  { id: "hostNamespaces", level: "baseline", versions: [{ since: 0, check: base.hostNamespaces }] },
  {
    id: "hostPathVolumes",
    level: "baseline",
    versions: [{ since: 0, check: base.hostPathVolumes }],
  },
  { id: "hostPorts", level: "baseline", versions: [{ since: 0, check: base.hostPorts }] },
  { id: "privileged", level: "baseline", versions: [{ since: 0, check: base.privileged }] },
  { id: "procMount", level: "baseline", versions: [{ since: 0, check: base.procMount }] },
  {
    id: "seLinuxOptions",
    level: "baseline",
    versions: [
      { since: 0, check: base.seLinuxOptions(base.SELINUX_TYPES_1_0) },
      { since: 31, check: base.seLinuxOptions(base.SELINUX_TYPES_1_31) },
    ],
  },
  {
    id: "seccompProfile_baseline",
    level: "baseline",
    versions: [
      { since: 0, check: base.seccompBaseline_1_0 },
      { since: 19, check: base.seccompBaseline_1_19 },
    ],
  },
  {
    id: "sysctls",
    level: "baseline",
    versions: Object.entries(base.SAFE_SYSCTLS).map(([since, names]) => ({
      since: Number(since),
      check: base.sysctls(names),
    })),
  },
  {
    id: "windowsHostProcess",
    level: "baseline",
    versions: [{ since: 0, check: base.windowsHostProcess }],
  },
  {
    id: "allowPrivilegeEscalation",
    level: "restricted",
    versions: [
      { since: 8, check: strict.allowPrivilegeEscalation },
      { since: 25, check: strict.exceptWindows(strict.allowPrivilegeEscalation) },
    ],
  },
  {
    id: "capabilities_restricted",
    level: "restricted",
    versions: [
      { since: 22, check: strict.capabilitiesRestricted, overrides: CAPS },
      { since: 25, check: strict.exceptWindows(strict.capabilitiesRestricted), overrides: CAPS },
    ],
  },
  {
    id: "restrictedVolumes",
    level: "restricted",
    versions: [{ since: 0, check: strict.restrictedVolumes, overrides: HOST_PATH }],
  },
  { id: "runAsNonRoot", level: "restricted", versions: [{ since: 0, check: strict.runAsNonRoot }] },
  { id: "runAsUser", level: "restricted", versions: [{ since: 23, check: strict.runAsUser }] },
  {
    id: "seccompProfile_restricted",
    level: "restricted",
    versions: [
      { since: 19, check: strict.seccompRestricted, overrides: SECCOMP },
      { since: 25, check: strict.exceptWindows(strict.seccompRestricted), overrides: SECCOMP },
    ],
  },
];

/** The newest policy minor any check changed at: later versions (and latest) evaluate as it. */
export const MAX_POLICY_MINOR = Math.max(...CHECKS.flatMap((c) => c.versions.map((v) => v.since)));

/** The form of `check` at `minor`, or undefined when it does not exist yet. */
function formAt(check: Check, minor: number): VersionedCheck | undefined {
  return check.versions.findLast((v) => v.since <= minor);
}

function minorOf(version: Version): number {
  return version.latest ? MAX_POLICY_MINOR : Math.min(version.minor, MAX_POLICY_MINOR);
}

/** The checks that run at a level and version, in kube's order. */
export function checksFor(lv: LevelVersion): CheckPod[] {
  if (lv.level === "privileged") return [];
  const minor = minorOf(lv.version);
  const forms = CHECKS.map((c) => ({ c, form: formAt(c, minor) })).filter((x) => x.form);
  const overridden = new Set<string>();
  if (lv.level === "restricted") {
    for (const { c, form } of forms) {
      if (c.level === "restricted") { for (const id of form!.overrides ?? []) overridden.add(id); }
    }
  }
  return forms
    .filter(({ c }) => c.level === "baseline" || lv.level === "restricted")
    .filter(({ c }) => !overridden.has(c.id))
    .map(({ form }) => form!.check);
}

/** The aggregate of a pod's check results: the forbidden reasons with their details. */
export interface Aggregate {
  allowed: boolean;
  reasons: string[];
  details: string[];
}

/** Evaluates a pod's metadata and spec at a level version. */
export function evaluatePod(lv: LevelVersion, meta: Obj, spec: Obj): Aggregate {
  return aggregate(checksFor(lv).map((check) => check(meta, spec)));
}

/** Aggregates check results (a forbidding result without a reason gets kube's placeholder). */
export function aggregate(results: CheckResult[]): Aggregate {
  const reasons: string[] = [], details: string[] = [];
  for (const r of results) {
    if (r.allowed) continue;
    reasons.push(r.reason || "unknown forbidden reason");
    details.push(r.detail ?? "");
  }
  return { allowed: reasons.length === 0, reasons, details };
}

/** `reason (detail), reason, ...`: what the 403 and the warnings say. */
export function forbiddenDetail(a: Aggregate): string {
  return a.reasons.map((r, i) => a.details[i] ? `${r} (${a.details[i]})` : r).join(", ");
}

/** `reason, reason, ...`: what the namespace warnings say per pod. */
export function forbiddenReason(a: Aggregate): string {
  return a.reasons.join(", ");
}
