/**
 * What a Pod Security check answers, and the helpers its messages are written with (as
 * k8s.io/pod-security-admission's policy package: `containers "a", "b"`).
 *
 * @module
 */
import { isObject } from "../../../shared/json/is_object.ts";

/** A JSON object (a pod spec, a container, a security context). */
export type Obj = Record<string, unknown>;

/** The result of one check: allowed, or the reason and detail it forbids the pod for. */
export interface CheckResult {
  allowed: boolean;
  /** Succinct, always shown (`host namespaces`). */
  reason?: string;
  /** The specific values, shown in parentheses after the reason (`hostNetwork=true`). */
  detail?: string;
}

/** A check of a pod's metadata and spec. */
export type CheckPod = (meta: Obj, spec: Obj) => CheckResult;

/** The allowed result. */
export const ALLOWED: CheckResult = { allowed: true };

/** A forbidding result. */
export function forbid(reason: string, detail: string): CheckResult {
  return { allowed: false, reason, detail };
}

/** `v` when it is an object, else an empty one. */
export function obj(v: unknown): Obj {
  return isObject(v) ? v : {};
}

/** `v` when it is an array, else an empty one. */
export function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** `"a", "b"` (empty for no items). */
export function joinQuote(items: readonly string[]): string {
  return items.length === 0 ? "" : `"${items.join(`", "`)}"`;
}

/** The singular for one, the plural otherwise. */
export function pluralize(singular: string, plural: string, count: number): string {
  return count === 1 ? singular : plural;
}

/** `container "a"` or `containers "a", "b"`. */
export function containersPhrase(names: readonly string[]): string {
  return `${pluralize("container", "containers", names.length)} ${joinQuote(names)}`;
}

/** Sorted distinct strings (as a Go string set's List()). */
export function sortedSet(values: Iterable<string>): string[] {
  return [...new Set(values)].sort((a, b) => a < b ? -1 : a > b ? 1 : 0);
}

/** Calls `visit` for every init, regular and ephemeral container, in that order. */
export function visitContainers(spec: Obj, visit: (c: Obj) => void): void {
  for (const key of ["initContainers", "containers", "ephemeralContainers"]) {
    for (const c of arr(spec[key])) visit(obj(c));
  }
}

/** A container's name. */
export function nameOf(c: Obj): string {
  return typeof c.name === "string" ? c.name : "";
}

/** The container's securityContext, or undefined. */
export function securityContextOf(c: Obj): Obj | undefined {
  return isObject(c.securityContext) ? c.securityContext : undefined;
}

/** Whether the pod runs on Windows (`spec.os.name: windows`). */
export function isWindows(spec: Obj): boolean {
  return obj(spec.os).name === "windows";
}
