/**
 * What a pod update may change (kube's ValidatePodUpdate): only the containers' and init
 * containers' images, `activeDeadlineSeconds` (set, or lowered), additions to `tolerations`,
 * removals of `schedulingGates`, and `terminationGracePeriodSeconds` from a negative value to 1.
 * Any other spec change is `spec: Forbidden` with kube's message and a diff of the change.
 * Binding (`pods/binding`), status and ephemeral containers have their own subresources.
 *
 * @module
 */
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { deepEqual } from "../../../../shared/json/deep_equal.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import { forbidden, invalid, required } from "../../../../shared/api/validation/field_errors.ts";

/** The fields kube's message lists as updatable. */
const UPDATABLE_POD_SPEC_FIELDS = [
  "`spec.containers[*].image`",
  "`spec.initContainers[*].image`",
  "`spec.activeDeadlineSeconds`",
  "`spec.tolerations` (only additions to existing tolerations)",
  "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
];

type Obj = Record<string, unknown>;

function specOf(pod: KubeObject): Obj {
  return isObject(pod.spec) ? pod.spec : {};
}

function listOf(v: unknown): Obj[] {
  return Array.isArray(v) ? v.filter(isObject) : [];
}

/**
 * A JSON value with its Go zero values dropped (null, "", false, 0, [], {}), so that a field a
 * client omits equals the same field stored with its zero value, as Go's semantic equality of
 * the decoded structs has it.
 */
export function withoutZeroValues(v: unknown): unknown {
  if (v === null || v === "" || v === false || v === 0) return undefined;
  if (Array.isArray(v)) {
    return v.length === 0 ? undefined : v.map((x) => withoutZeroValues(x) ?? null);
  }
  if (!isObject(v)) return v;
  const out: Obj = {};
  for (const [k, x] of Object.entries(v)) {
    const y = withoutZeroValues(x);
    if (y !== undefined) out[k] = y;
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

/** Semantic equality of two JSON values (zero values equal absent ones). */
export function semanticEqual(a: unknown, b: unknown): boolean {
  return deepEqual(withoutZeroValues(a), withoutZeroValues(b));
}

/** ValidateContainerUpdates: the same number of containers, each with an image. */
function containerUpdates(field: string, next: unknown, prev: unknown): [FieldError[], boolean] {
  const a = listOf(next), b = listOf(prev);
  if (a.length !== b.length) {
    return [[forbidden(field, "pod updates may not add or remove containers")], true];
  }
  const errs: FieldError[] = [];
  for (const [i, c] of a.entries()) {
    const image = typeof c.image === "string" ? c.image : "";
    if (image === "") errs.push(required(`${field}[${i}].image`));
    else if (image.trim() !== image) {
      errs.push(
        invalid(`${field}[${i}].image`, image, "must not have leading or trailing whitespace"),
      );
    }
  }
  return [errs, false];
}

/** activeDeadlineSeconds: set from nil, or lowered; never removed. */
function activeDeadline(next: Obj, prev: Obj): FieldError[] {
  const field = "spec.activeDeadlineSeconds";
  const a = next.activeDeadlineSeconds, b = prev.activeDeadlineSeconds;
  if (typeof a === "number") {
    if (a < 0 || a > 2147483647) {
      return [invalid(field, a, "must be between 0 and 2147483647, inclusive")];
    }
    if (typeof b === "number" && b < a) {
      return [invalid(field, a, "must be less than or equal to previous value")];
    }
  } else if (typeof b === "number") {
    return [invalid(field, null, "must not update from a positive integer to nil value")];
  }
  return [];
}

/** validateOnlyAddedTolerations: every old toleration is kept (its tolerationSeconds may change). */
function onlyAddedTolerations(next: unknown, prev: unknown): FieldError[] {
  const added = listOf(next);
  for (const old of listOf(prev)) {
    const found = added.some((t) =>
      semanticEqual({ ...old, tolerationSeconds: undefined }, {
        ...t,
        tolerationSeconds: undefined,
      })
    );
    if (!found) {
      return [
        forbidden(
          "spec.tolerations",
          "existing toleration can not be modified except its tolerationSeconds",
        ),
      ];
    }
  }
  return [];
}

/** validateOnlyDeletedSchedulingGates: no gate that was not there before. */
function onlyDeletedGates(next: unknown, prev: unknown): FieldError[] {
  const before = new Set(listOf(prev).map((g) => g.name));
  return listOf(next).flatMap((g, i) =>
    before.has(g.name) ? [] : [
      forbidden(
        `spec.schedulingGates[${i}].name`,
        `only deletion is allowed, but found new scheduling gate '${g.name}'`,
      ),
    ]
  );
}

/** The new spec with its updatable fields taken from the old one (kube's munged spec). */
function mungedSpec(next: Obj, prev: Obj): Obj {
  const munged = structuredClone(next);
  for (const key of ["containers", "initContainers"]) {
    const before = listOf(prev[key]);
    if (Array.isArray(munged[key])) {
      munged[key] = listOf(munged[key]).map((c, i) => ({ ...c, image: before[i]?.image }));
    }
  }
  for (const key of ["activeDeadlineSeconds", "schedulingGates", "tolerations"]) {
    munged[key] = prev[key];
  }
  const grace = prev.terminationGracePeriodSeconds;
  if (typeof grace === "number" && grace < 0 && munged.terminationGracePeriodSeconds === 1) {
    munged.terminationGracePeriodSeconds = grace;
  }
  return munged;
}

function goName(field: string): string {
  return field.charAt(0).toUpperCase() + field.slice(1);
}

function goValue(v: unknown): string {
  return v === undefined || v === null ? "nil" : JSON.stringify(v);
}

/** A diff of two specs in the spirit of go-cmp's, one line per changed field. */
export function specDiff(prev: Obj, next: Obj, type = "core.PodSpec"): string {
  const keys = [...new Set([...Object.keys(prev), ...Object.keys(next)])].sort();
  const lines = [`  ${type}{`];
  let same = 0;
  for (const k of keys) {
    if (semanticEqual(prev[k], next[k])) {
      same++;
      continue;
    }
    lines.push(`- \t${goName(k)}: ${goValue(prev[k])},`, `+ \t${goName(k)}: ${goValue(next[k])},`);
  }
  if (same > 0) lines.push(`  \t... // ${same} identical fields`);
  lines.push("  }");
  return lines.join("\n") + "\n";
}

/** ValidatePodUpdate's spec rules for an update of `old` to `pod`. */
export function validatePodSpecUpdate(pod: KubeObject, old: KubeObject): FieldError[] {
  const next = specOf(pod), prev = specOf(old);
  const errs: FieldError[] = [];
  for (const key of ["containers", "initContainers"]) {
    const [cerrs, stop] = containerUpdates(`spec.${key}`, next[key], prev[key]);
    errs.push(...cerrs);
    if (stop) return errs;
  }
  const deadline = activeDeadline(next, prev);
  if (deadline.length > 0) return [...errs, ...deadline];
  errs.push(...onlyAddedTolerations(next.tolerations, prev.tolerations));
  errs.push(...onlyDeletedGates(next.schedulingGates, prev.schedulingGates));
  if (semanticEqual(next, prev)) return errs;
  const munged = mungedSpec(next, prev);
  if (!semanticEqual(munged, prev)) {
    errs.push(
      forbidden(
        "spec",
        `pod updates may not change fields other than ${UPDATABLE_POD_SPEC_FIELDS.join(",")}\n${
          specDiff(prev, munged)
        }`,
      ),
    );
  }
  return errs;
}
