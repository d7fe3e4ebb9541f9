/**
 * Two rules of a CustomResourceDefinition beside its spec: the API approval annotation of the
 * protected community groups (`*.k8s.io`, `*.kubernetes.io`) and a version's deprecation
 * warning, with apiextensions-apiserver's messages.
 *
 * @module
 */
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { invalid, required } from "../../../../shared/api/validation/field_errors.ts";
import { byteLength } from "../../../../shared/api/validation/go_quote.ts";

/** The annotation that records a protected group's API review. */
export const API_APPROVED_ANNOTATION = "api-approved.kubernetes.io";

const ENHANCEMENT = "see https://github.com/kubernetes/enhancements/pull/1111";

/** Whether a group is reserved for the Kubernetes community (apihelpers.IsProtectedCommunityGroup). */
export function isProtectedCommunityGroup(group: string): boolean {
  return group === "k8s.io" || group.endsWith(".k8s.io") || group === "kubernetes.io" ||
    group.endsWith(".kubernetes.io");
}

type Approval = "invalid" | "approved" | "bypassed" | "missing";

function approvalState(crd: KubeObject): { state: Approval; reason: string } {
  const a = crd.metadata?.annotations?.[API_APPROVED_ANNOTATION] ?? "";
  const quoted = JSON.stringify(API_APPROVED_ANNOTATION);
  if (a === "") {
    return {
      state: "missing",
      reason: `protected groups must have approval annotation ${quoted}, ${ENHANCEMENT}`,
    };
  }
  if (a.startsWith("unapproved")) return { state: "bypassed", reason: "" };
  let url: URL | undefined;
  try {
    url = a.startsWith("/") || /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(a) ? new URL(a) : undefined;
  } catch {
    url = undefined;
  }
  if (url && url.host !== "" && url.protocol !== "") return { state: "approved", reason: "" };
  return {
    state: "invalid",
    reason: `protected groups must have approval annotation ${quoted} with either a URL or a ` +
      `reason starting with "unapproved", ${ENHANCEMENT}`,
  };
}

/** validateAPIApproval: protected groups need the annotation (checked when it changes). */
export function validateApiApproval(crd: KubeObject, old: KubeObject | undefined): FieldError[] {
  const group = (crd.spec as { group?: unknown } | undefined)?.group;
  if (typeof group !== "string" || !isProtectedCommunityGroup(group)) return [];
  const next = approvalState(crd);
  if (old && approvalState(old).state === next.state) return [];
  const path = `metadata.annotations[${API_APPROVED_ANNOTATION}]`;
  const value = crd.metadata?.annotations?.[API_APPROVED_ANNOTATION] ?? "";
  switch (next.state) {
    case "missing":
      return [required(path, next.reason)];
    case "invalid":
      return [invalid(path, value, next.reason)];
    default:
      return [];
  }
}

/** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
function isPrint(ch: string): boolean {
  return ch === " " || /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(ch);
}

/** validateDeprecationWarning of one version. */
export function validateDeprecationWarning(
  version: Record<string, unknown>,
  path: string,
): FieldError[] {
  const w = version.deprecationWarning;
  if (w === undefined || w === null) return [];
  const text = String(w);
  if (version.deprecated !== true) {
    return [invalid(path, text, "can only be set for deprecated versions")];
  }
  const errs: FieldError[] = [];
  if (byteLength(text) > 256) errs.push(invalid(path, text, "must be <= 256 characters long"));
  if (text === "") errs.push(invalid(path, text, "must not be an empty string"));
  let index = 0;
  for (const ch of text) {
    if (!isPrint(ch)) {
      errs.push(
        invalid(
          path,
          text,
          `must only contain printable UTF-8 characters; non-printable character found at index ${index}`,
        ),
      );
      break;
    }
    index += byteLength(ch);
  }
  return errs;
}
