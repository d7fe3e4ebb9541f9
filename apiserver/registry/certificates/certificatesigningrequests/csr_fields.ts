/**
 * Readers of a CertificateSigningRequest's fields that tolerate any JSON (validation runs on
 * what the client sent): spec, status, conditions, and `bytes` fields decoded from base64.
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import { fromBase64 } from "../../../../shared/codec/protobuf/well_known.ts";

/** The spec, or `{}`. */
export function specOf(obj: KubeObject): Record<string, unknown> {
  return isObject(obj.spec) ? obj.spec : {};
}

/** The status, or `{}`. */
export function statusOf(obj: KubeObject): Record<string, unknown> {
  return isObject(obj.status) ? obj.status : {};
}

/** The status conditions (objects only). */
export function conditionsOf(obj: KubeObject): Record<string, unknown>[] {
  const c = statusOf(obj).conditions;
  return Array.isArray(c) ? c.filter(isObject) : [];
}

/** The bytes of a base64 `bytes` field; empty when absent or not base64. */
export function base64Bytes(value: unknown): Uint8Array {
  if (typeof value !== "string") return new Uint8Array();
  return fromBase64(value.replace(/\s/g, "")) ?? new Uint8Array();
}
