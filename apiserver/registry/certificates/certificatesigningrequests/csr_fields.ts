/**
 * Readers of a CertificateSigningRequest's fields that tolerate any JSON (validation runs on
 * what the client sent): spec, status, conditions, and `bytes` fields decoded from base64.
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { isObject } from "../../../../shared/json/is_object.ts";

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

/** The bytes of a binary string (as atob returns), in a plain loop (fast on megabytes). */
export function binaryBytes(binary: string): Uint8Array {
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

/** The bytes of a base64 `bytes` field; empty when absent or not base64. */
export function base64Bytes(value: unknown): Uint8Array {
  if (typeof value !== "string") return new Uint8Array();
  try {
    return binaryBytes(atob(value.replace(/\s/g, "")));
  } catch {
    return new Uint8Array();
  }
}
