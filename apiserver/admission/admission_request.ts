/**
 * The admission.k8s.io/v1 AdmissionRequest of an admission request, as Kubernetes builds it
 * for webhooks (k8s.io/apiserver/pkg/admission/plugin/webhook/request) and for the `request`
 * variable of admission policies (plugin/cel CreateAdmissionRequest): `kind`, `resource` and
 * `subResource` are the version the webhook or policy matched (converted to under
 * `matchPolicy: Equivalent`), `requestKind`, `requestResource` and `requestSubResource` the
 * version the request was sent as.
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import type { AdmissionAttributes } from "../registry/generic/admission.ts";
import type { KindDef } from "../registry/generic/kind.ts";
import { convertObject, kindOf, resourceOf } from "./matching/match_request.ts";
import type { GroupVersionKind, GroupVersionResource } from "./matching/rules.ts";

/** The AdmissionRequest (`request` of an AdmissionReview). */
export interface AdmissionRequest {
  uid: string;
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  subResource?: string;
  requestKind: GroupVersionKind;
  requestResource: GroupVersionResource;
  requestSubResource?: string;
  name?: string;
  namespace?: string;
  operation: AdmissionAttributes["operation"];
  userInfo: {
    username?: string;
    uid?: string;
    groups?: string[];
    extra?: Record<string, string[]>;
  };
  object?: KubeObject | null;
  oldObject?: KubeObject | null;
  dryRun: boolean;
  options?: Record<string, unknown> | null;
}

/** Options of {@link admissionRequestOf}. */
export interface AdmissionRequestOptions {
  /** The request's UID (webhooks: a fresh UUID per call; policies leave it empty). */
  uid?: string;
  /** The served version matched, when not the request's own (`matchPolicy: Equivalent`). */
  matched?: KindDef;
  /** Include `object` and `oldObject` (webhooks do; policies read them as variables). */
  includeObjects?: boolean;
  /** The operation's options object; default a bare Create/Update/DeleteOptions. */
  options?: Record<string, unknown> | null;
}

const OPTIONS_KIND: Record<string, string | undefined> = {
  CREATE: "CreateOptions",
  UPDATE: "UpdateOptions",
  DELETE: "DeleteOptions",
};

/** The options object Kubernetes attaches: `{kind, apiVersion: meta.k8s.io/v1, dryRun?}`. */
export function operationOptionsOf(attrs: AdmissionAttributes): Record<string, unknown> | null {
  // The store's own (fieldManager, fieldValidation, the DeleteOptions given) when it has them.
  if (attrs.options) return attrs.options;
  const kind = OPTIONS_KIND[attrs.operation];
  if (!kind) return null;
  const out: Record<string, unknown> = { kind, apiVersion: "meta.k8s.io/v1" };
  if (attrs.dryRun) out.dryRun = ["All"];
  return out;
}

/** Builds the AdmissionRequest of `attrs` (objects converted to the matched version). */
export async function admissionRequestOf(
  attrs: AdmissionAttributes,
  opts: AdmissionRequestOptions = {},
): Promise<AdmissionRequest> {
  const sent = attrs.requestKind ?? attrs.kind;
  const matched = opts.matched ?? sent;
  const user = attrs.user;
  const req: AdmissionRequest = {
    uid: opts.uid ?? "",
    kind: kindOf(matched, attrs.subresource),
    resource: resourceOf(matched),
    requestKind: kindOf(sent, attrs.subresource),
    requestResource: resourceOf(sent),
    operation: attrs.operation,
    userInfo: {},
    dryRun: attrs.dryRun,
    options: opts.options !== undefined ? opts.options : operationOptionsOf(attrs),
  };
  if (attrs.subresource) {
    req.subResource = attrs.subresource;
    req.requestSubResource = attrs.subresource;
  }
  if (attrs.name) req.name = attrs.name;
  if (attrs.namespace) req.namespace = attrs.namespace;
  if (user) {
    if (user.username) req.userInfo.username = user.username;
    if (user.uid) req.userInfo.uid = user.uid;
    if (user.groups?.length) req.userInfo.groups = [...user.groups];
    if (user.extra && Object.keys(user.extra).length) req.userInfo.extra = { ...user.extra };
  }
  if (opts.includeObjects) {
    const conv = (o: KubeObject | undefined) => o ? convertObject(o, attrs.kind, matched) : null;
    [req.object, req.oldObject] = await Promise.all([conv(attrs.object), conv(attrs.oldObject)]);
  }
  return req;
}
