/**
 * The audit event (audit.k8s.io/v1 `Event`) and the helpers that fill it: timestamps, the
 * object reference, the response status, and the logged objects with credentials taken out.
 *
 * @module
 */
import type { AuditLevel, AuditStage } from "./policy.ts";

/** A user as the audit event records it. */
export interface AuditUser {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** What the request addressed. */
export interface ObjectReference {
  resource?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiGroup?: string;
  apiVersion?: string;
  resourceVersion?: string;
  subresource?: string;
}

/** One audit event. */
export interface AuditEvent {
  kind: "Event";
  apiVersion: "audit.k8s.io/v1";
  level: AuditLevel;
  auditID: string;
  stage: AuditStage;
  requestURI: string;
  verb: string;
  user: AuditUser;
  impersonatedUser?: AuditUser;
  sourceIPs?: string[];
  userAgent?: string;
  objectRef?: ObjectReference;
  responseStatus?: Record<string, unknown>;
  requestObject?: unknown;
  responseObject?: unknown;
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}

/** A timestamp in metav1.MicroTime's form (six fractional digits, UTC). */
export function microTime(ms: number = Date.now()): string {
  return new Date(ms).toISOString().replace(/Z$/, "000Z");
}

/** The user as recorded (absent fields left out). */
export function auditUser(u: AuditUser): AuditUser {
  return {
    username: u.username,
    ...(u.uid ? { uid: u.uid } : {}),
    ...(u.groups?.length ? { groups: [...u.groups] } : {}),
    ...(u.extra && Object.keys(u.extra).length ? { extra: u.extra } : {}),
  };
}

/**
 * The client's addresses, as kube records them: the `X-Forwarded-For` chain, then
 * `X-Real-Ip`, then the connection's peer, without repeats.
 */
export function sourceIPs(headers: Headers, peer: string): string[] {
  const out: string[] = [];
  const add = (ip: string) => {
    const v = ip.trim();
    if (v !== "" && !out.includes(v)) out.push(v);
  };
  for (const ip of (headers.get("x-forwarded-for") ?? "").split(",")) add(ip);
  add(headers.get("x-real-ip") ?? "");
  add(peer);
  return out;
}

/** The object reference of a resource request (core group left out, as kube does). */
export function objectRefOf(info: {
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
}): ObjectReference {
  return {
    resource: info.resource,
    ...(info.namespace ? { namespace: info.namespace } : {}),
    ...(info.name ? { name: info.name } : {}),
    ...(info.apiGroup ? { apiGroup: info.apiGroup } : {}),
    apiVersion: info.apiVersion,
    ...(info.subresource ? { subresource: info.subresource } : {}),
  };
}

/** The bounded part of a Status recorded as the response status (kube copies these fields). */
export function responseStatusOf(status: Record<string, unknown>, code: number) {
  const out: Record<string, unknown> = { metadata: {} };
  for (const k of ["status", "message", "reason", "details"]) {
    if (status[k] !== undefined && status[k] !== "") out[k] = status[k];
  }
  out.code = code;
  return out;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * A copy of `value` fit for the log: never a token (TokenReview `spec.token`, TokenRequest
 * `status.token`), and without `metadata.managedFields` (also of list items) when `omitManaged`.
 */
export function loggableObject(value: unknown, omitManaged: boolean): unknown {
  if (!isObj(value)) return value;
  let out: Obj = value;
  const kind = value.kind;
  if (kind === "TokenReview" && isObj(value.spec) && "token" in value.spec) {
    const { token: _t, ...spec } = value.spec;
    out = { ...out, spec };
  }
  if (kind === "TokenRequest" && isObj(value.status) && "token" in value.status) {
    const { token: _t, ...status } = value.status;
    out = { ...out, status };
  }
  if (omitManaged && isObj(out.metadata) && "managedFields" in out.metadata) {
    const { managedFields: _m, ...metadata } = out.metadata;
    out = { ...out, metadata };
  }
  if (omitManaged && Array.isArray(out.items)) {
    out = { ...out, items: out.items.map((i) => loggableObject(i, true)) };
  }
  return out;
}

/** Fills the reference's name, uid and resourceVersion from `obj`'s metadata where unset. */
export function completeObjectRef(ref: ObjectReference | undefined, obj: unknown): void {
  if (!ref || !isObj(obj) || !isObj(obj.metadata) || Array.isArray(obj.items)) return;
  const m = obj.metadata;
  if (!ref.name && typeof m.name === "string" && m.name) ref.name = m.name;
  if (!ref.uid && typeof m.uid === "string" && m.uid) ref.uid = m.uid;
  if (!ref.resourceVersion && typeof m.resourceVersion === "string" && m.resourceVersion) {
    ref.resourceVersion = m.resourceVersion;
  }
}
