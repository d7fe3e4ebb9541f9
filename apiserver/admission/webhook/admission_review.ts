/**
 * The AdmissionReview a webhook is sent (admission.k8s.io v1 or v1beta1, the first of the
 * webhook's `admissionReviewVersions` that is known) and the checks of its answer, with
 * Kubernetes' messages (k8s.io/apiserver/pkg/admission/plugin/webhook/request).
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { fromBase64 } from "../../../shared/codec/protobuf/well_known.ts";
import type { AdmissionAttributes } from "../../registry/generic/admission.ts";
import type { KindDef } from "../../registry/generic/kind.ts";

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

/** The operation options kube passes (CreateOptions, UpdateOptions or DeleteOptions). */
function optionsOf(attrs: AdmissionAttributes): Obj | null {
  const kind = { CREATE: "CreateOptions", UPDATE: "UpdateOptions", DELETE: "DeleteOptions" }[
    attrs.operation as "CREATE" | "UPDATE" | "DELETE"
  ];
  if (!kind) return null;
  return {
    kind,
    apiVersion: "meta.k8s.io/v1",
    ...(attrs.dryRun ? { dryRun: ["All"] } : {}),
  };
}

function userInfoOf(attrs: AdmissionAttributes): Obj {
  const u = attrs.user;
  if (!u) return {};
  const out: Obj = {};
  if (u.username) out.username = u.username;
  if (u.uid) out.uid = u.uid;
  if (u.groups?.length) out.groups = u.groups;
  if (u.extra && Object.keys(u.extra).length) out.extra = u.extra;
  return out;
}

/** What the webhook sees: the version its rule matched, and the objects in that version. */
export interface ReviewInvocation {
  def: KindDef;
  object?: KubeObject;
  oldObject?: KubeObject;
}

/** The `request` of an AdmissionReview (also `request` in match conditions). */
export function admissionRequest(
  uid: string,
  attrs: AdmissionAttributes,
  inv: ReviewInvocation,
): Obj {
  const req: Obj = {
    uid,
    kind: { group: inv.def.group, version: inv.def.version, kind: inv.def.kind },
    resource: { group: inv.def.group, version: inv.def.version, resource: inv.def.plural },
  };
  if (attrs.subresource) req.subResource = attrs.subresource;
  const own = attrs.kind;
  req.requestKind = { group: own.group, version: own.version, kind: own.kind };
  req.requestResource = { group: own.group, version: own.version, resource: own.plural };
  if (attrs.subresource) req.requestSubResource = attrs.subresource;
  if (attrs.name) req.name = attrs.name;
  if (attrs.namespace) req.namespace = attrs.namespace;
  req.operation = attrs.operation;
  req.userInfo = userInfoOf(attrs);
  req.object = inv.object ?? null;
  req.oldObject = inv.oldObject ?? null;
  req.dryRun = attrs.dryRun;
  req.options = optionsOf(attrs);
  return req;
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
  return JSON.parse(new TextDecoder().decode(bytes));
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
    result: typeof resp.result === "object" && resp.result !== null
      ? resp.result as Obj
      : undefined,
    warnings: Array.isArray(resp.warnings)
      ? resp.warnings.filter((w): w is string => typeof w === "string")
      : [],
    auditAnnotations: stringMap(resp.auditAnnotations),
  };
}
