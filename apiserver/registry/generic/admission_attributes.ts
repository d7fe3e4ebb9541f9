/**
 * The admission attributes of a store write, with the operation's options object as kube
 * sends it in AdmissionRequest.options (CreateOptions, UpdateOptions, DeleteOptions).
 *
 * @module
 */
import type { DeleteOptions, KubeObject } from "../../../shared/api/meta/v1/types.ts";
import type { UserInfo } from "../../../shared/api/authentication/v1/user_info.ts";
import type { AdmissionAttributes, AdmissionOperation } from "./admission.ts";
import type { KindDef } from "./kind.ts";

/** What a write's options contribute to its admission attributes. */
export interface AdmissionWriteOptions {
  dryRun?: boolean;
  user?: UserInfo;
  fieldManager?: string;
  /** The request's `fieldValidation` (Ignore, Warn or Strict), when the request gave one. */
  fieldValidation?: string;
  warn?: (message: string) => void;
  /** The kind the request was sent as, when served from the store's kind (another version). */
  requestKind?: KindDef;
  /** The request's audit annotations, when it is audited; admission plugins add to them. */
  auditAnnotations?: Record<string, string>;
}

/**
 * The options object of an operation: CreateOptions or UpdateOptions built from the write's
 * options, or the request's DeleteOptions; undefined for CONNECT.
 */
export function operationOptions(
  operation: AdmissionOperation,
  opts: AdmissionWriteOptions,
  deleteOptions?: DeleteOptions,
): Record<string, unknown> | undefined {
  const meta = { apiVersion: "meta.k8s.io/v1" };
  const dryRun = opts.dryRun ? { dryRun: ["All"] } : {};
  if (operation === "DELETE") {
    return { ...(deleteOptions ?? {}), kind: "DeleteOptions", ...meta, ...dryRun };
  }
  if (operation === "CONNECT") return undefined;
  return {
    kind: operation === "CREATE" ? "CreateOptions" : "UpdateOptions",
    ...meta,
    ...dryRun,
    ...(opts.fieldManager !== undefined ? { fieldManager: opts.fieldManager } : {}),
    ...(opts.fieldValidation ? { fieldValidation: opts.fieldValidation } : {}),
  };
}

/** The attributes of one admission request on `def`. */
export function admissionAttributes(
  def: KindDef,
  operation: AdmissionOperation,
  target: {
    object?: KubeObject;
    oldObject?: KubeObject;
    namespace?: string;
    name?: string;
    subresource?: string;
    deleteOptions?: DeleteOptions;
  },
  opts: AdmissionWriteOptions,
): AdmissionAttributes {
  const meta = (target.object ?? target.oldObject)?.metadata;
  return {
    operation,
    kind: def,
    namespace: target.namespace ?? meta?.namespace ?? "",
    name: target.name ?? meta?.name ?? "",
    subresource: target.subresource ?? "",
    object: target.object,
    oldObject: target.oldObject,
    user: opts.user,
    dryRun: !!opts.dryRun,
    warn: opts.warn,
    ...(opts.requestKind ? { requestKind: opts.requestKind } : {}),
    ...(opts.auditAnnotations ? { auditAnnotations: opts.auditAnnotations } : {}),
    options: operationOptions(operation, opts, target.deleteOptions),
  };
}
