/**
 * Pod Security levels, versions and the policy a namespace's labels ask for, as
 * k8s.io/pod-security-admission's api package: `pod-security.kubernetes.io/<mode>` names a
 * level (privileged, baseline, restricted) and `<mode>-version` a version (`latest` or
 * `v1.<minor>`) for each of the modes enforce, audit and warn.
 *
 * @module
 */
import type { FieldError } from "../../../shared/errors/status_error.ts";
import { invalid } from "../../../shared/api/validation/field_errors.ts";

/** A Pod Security Standards level. */
export type Level = "privileged" | "baseline" | "restricted";

/** A policy version: a minor of Kubernetes 1, or `latest` (newer than every minor). */
export type Version = { latest: true } | { latest: false; minor: number };

/** A level at a version. */
export interface LevelVersion {
  level: Level;
  version: Version;
}

/** The three modes' level versions. */
export interface Policy {
  enforce: LevelVersion;
  audit: LevelVersion;
  warn: LevelVersion;
}

/** The prefix of the labels and of the audit annotations. */
export const LABEL_PREFIX = "pod-security.kubernetes.io/";
const LEVELS: readonly Level[] = ["privileged", "baseline", "restricted"];
const VERSION_RE = /^v1\.([0-9]|[1-9][0-9]*)$/;

/** `latest`. */
export const LATEST: Version = { latest: true };

/** `v1.<minor>`. */
export function v1(minor: number): Version {
  return { latest: false, minor };
}

/** `latest` or `v1.<minor>`. */
export function versionString(v: Version): string {
  return v.latest ? "latest" : `v1.${v.minor}`;
}

/** `<level>:<version>`, as in kube's messages (`restricted:latest`). */
export function levelVersionString(lv: LevelVersion): string {
  return `${lv.level}:${versionString(lv.version)}`;
}

/** Whether `a` is older than `b` (latest is newer than every minor). */
export function olderThan(a: Version, b: Version): boolean {
  if (a.latest) return false;
  if (b.latest) return true;
  return a.minor < b.minor;
}

/** Whether two versions are the same. */
export function sameVersion(a: Version, b: Version): boolean {
  return a.latest ? b.latest : !b.latest && a.minor === b.minor;
}

/** -1, 0 or 1 as `a` is less strict than, as strict as, or stricter than `b`. */
export function compareLevels(a: Level, b: Level): number {
  return Math.sign(LEVELS.indexOf(a) - LEVELS.indexOf(b));
}

/** Whether two level versions are equivalent (any two privileged ones are). */
export function equivalent(a: LevelVersion, b: LevelVersion): boolean {
  return (a.level === "privileged" && b.level === "privileged") ||
    (a.level === b.level && sameVersion(a.version, b.version));
}

/** The policy where no label says otherwise: privileged:latest in every mode. */
export function defaultPolicy(): Policy {
  const p = (): LevelVersion => ({ level: "privileged", version: LATEST });
  return { enforce: p(), audit: p(), warn: p() };
}

/** Whether every mode is privileged (nothing to evaluate). */
export function fullyPrivileged(p: Policy): boolean {
  return p.enforce.level === "privileged" && p.audit.level === "privileged" &&
    p.warn.level === "privileged";
}

function parseLevel(s: string): Level | undefined {
  return (LEVELS as readonly string[]).includes(s) ? s as Level : undefined;
}

/** Parses `latest` or `v1.<minor>`; undefined when it is neither. */
export function parseVersion(s: string): Version | undefined {
  if (s === "latest") return LATEST;
  const m = VERSION_RE.exec(s);
  if (!m) return undefined;
  const minor = Number(m[1]);
  return Number.isSafeInteger(minor) ? v1(minor) : undefined;
}

/**
 * The policy of a namespace's labels over `defaults`, with one field error per bad label (as
 * kube's PolicyToEvaluate): a bad enforce level fails closed (restricted), a bad audit or
 * warn level fails open (privileged), a bad version is latest. Without a warn label, warn is
 * raised to a stricter enforce level (and its version, unless warn-version is set).
 */
export function policyToEvaluate(
  labels: Record<string, string>,
  defaults: Policy = defaultPolicy(),
): { policy: Policy; errors: FieldError[] } {
  const p: Policy = structuredClone(defaults);
  const errors: FieldError[] = [];
  const bad = (key: string, value: string, detail: string) =>
    errors.push(invalid(`metadata.labels[${LABEL_PREFIX}${key}]`, value, detail));
  const modes = [["enforce", "restricted"], ["audit", "privileged"], [
    "warn",
    "privileged",
  ]] as const;
  let hasEnforceLevel = false;
  for (const [mode, failTo] of modes) {
    const level = labels[LABEL_PREFIX + mode];
    if (level !== undefined) {
      const parsed = parseLevel(level);
      if (!parsed) bad(mode, level, `must be one of ${LEVELS.join(", ")}`);
      p[mode].level = parsed ?? failTo;
      if (mode === "enforce") hasEnforceLevel = !!parsed;
    }
    const version = labels[`${LABEL_PREFIX}${mode}-version`];
    if (version !== undefined) {
      const parsed = parseVersion(version);
      if (!parsed) bad(`${mode}-version`, version, `must be "latest" or "v1.x"`);
      p[mode].version = parsed ?? LATEST;
    }
  }
  const hasWarnLevel = (LABEL_PREFIX + "warn") in labels;
  const hasWarnVersion = `${LABEL_PREFIX}warn-version` in labels;
  if (!hasWarnLevel && hasEnforceLevel && compareLevels(p.enforce.level, p.warn.level) > 0) {
    p.warn.level = p.enforce.level;
    if (!hasWarnVersion) p.warn.version = p.enforce.version;
  }
  return { policy: p, errors };
}
