/**
 * The AdmissionReview a webhook is sent (admission.k8s.io v1 or v1beta1, the first of the
 * webhook's `admissionReviewVersions` that is known; the request is built by
 * ../admission_request.ts) and the checks of its answer, with
 * Kubernetes' messages (k8s.io/apiserver/pkg/admission/plugin/webhook/request).
 *
 * @module
 */
import { fromBase64 } from "../../../shared/codec/protobuf/well_known.ts";

type Obj = Record<string, unknown>;

/** The versions of AdmissionReview this server sends. */
export const REVIEW_VERSIONS = ["v1", "v1beta1"] as const;

/** The first known version among `versions`, or undefined. */
export function reviewVersionOf(versions: unknown): "v1" | "v1beta1" | undefined {
  for (const v of Array.isArray(versions) ? versions : []) {
    if (v === "v1" || v === "v1beta1") return v;
  }
  return undefined;
}

/** The AdmissionReview document sent. */
export function admissionReview(version: "v1" | "v1beta1", request: Obj): Obj {
  return { kind: "AdmissionReview", apiVersion: `admission.k8s.io/${version}`, request };
}

/** A webhook's verified answer. */
export interface AdmissionResponse {
  allowed: boolean;
  /** The decoded JSON patch (mutating webhooks). */
  patch?: unknown;
  /** The Status of a denial (JSON field `status`, Go's `Result`). */
  result?: Obj;
  warnings: string[];
  auditAnnotations: Record<string, string>;
}

function stringMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof v !== "object" || v === null) return out;
  for (const [k, x] of Object.entries(v)) if (typeof x === "string") out[k] = x;
  return out;
}

/** A patch that is not JSON (kube: "received undecodable patch in webhook response"). */
export class UndecodablePatchError extends Error {}

function patchOf(r: Obj, version: "v1" | "v1beta1", mutating: boolean): unknown {
  const raw = typeof r.patch === "string" ? r.patch : "";
  const hasType = r.patchType !== undefined && r.patchType !== null;
  if (version === "v1") {
    if (!mutating) {
      if (raw) throw new Error("validating webhook may not return response.patch");
      if (hasType) throw new Error("validating webhook may not return response.patchType");
      return undefined;
    }
    if (raw && !hasType) {
      throw new Error("webhook returned response.patch but not response.patchType");
    }
    if (!raw && hasType) {
      throw new Error("webhook returned response.patchType but not response.patch");
    }
    if (hasType && r.patchType === "") {
      throw new Error(`webhook returned invalid response.patchType of ""`);
    }
    if (hasType && r.patchType !== "JSONPatch") {
      throw new Error(`unsupported patch type "${String(r.patchType)}"`);
    }
  }
  if (!raw || !mutating) return undefined;
  const bytes = fromBase64(raw);
  if (!bytes) throw new Error("illegal base64 data in response.patch");
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch (err) {
    throw new UndecodablePatchError((err as Error).message);
  }
}

/**
 * Checks a webhook's answer as VerifyAdmissionResponse does (v1: the response is present,
 * its uid is the request's, the document is admission.k8s.io/v1 AdmissionReview, and patches
 * come with `patchType: JSONPatch` from mutating webhooks only). Throws an Error worded as
 * kube's.
 */
export function verifyAdmissionResponse(
  answer: unknown,
  uid: string,
  version: "v1" | "v1beta1",
  mutating: boolean,
): AdmissionResponse {
  const review = (typeof answer === "object" && answer !== null ? answer : {}) as Obj;
  const r = review.response;
  if (typeof r !== "object" || r === null) throw new Error("webhook response was absent");
  const resp = r as Obj;
  if (version === "v1") {
    if (resp.uid !== uid) {
      throw new Error(`expected response.uid="${uid}", got "${String(resp.uid ?? "")}"`);
    }
    const gv = `${review.apiVersion ?? ""}`, kind = `${review.kind ?? ""}`;
    if (gv !== "admission.k8s.io/v1" || kind !== "AdmissionReview") {
      const [g, v] = gv.includes("/") ? gv.split("/") : ["", gv];
      throw new Error(
        `expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${g}/${v}, Kind=${kind}`,
      );
    }
  }
  return {
    allowed: resp.allowed === true,
    patch: patchOf(resp, version, mutating),
    result: typeof resp.status === "object" && resp.status !== null
      ? resp.status as Obj
      : undefined,
    warnings: Array.isArray(resp.warnings)
      ? resp.warnings.filter((w): w is string => typeof w === "string")
      : [],
    auditAnnotations: stringMap(resp.auditAnnotations),
  };
}
