/**
 * The admission interface the generic store calls: mutating plugins may change the object,
 * validating plugins may only reject it (by throwing a StatusError).
 *
 * @module
 */
import type { UserInfo } from "../../../shared/api/authentication/v1/user_info.ts";
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import type { KindDef } from "./kind.ts";

/** What an admission plugin sees of a request. */
export interface AdmissionAttributes {
  operation: "CREATE" | "UPDATE" | "DELETE" | "CONNECT";
  kind: KindDef;
  /**
   * The kind the request was sent as, when it is served from `kind`'s storage (another
   * version); the objects are in `kind`'s form.
   */
  requestKind?: KindDef;
  namespace: string;
  name: string;
  subresource: string;
  /** The object being written (absent on DELETE). */
  object?: KubeObject;
  /** The stored object (UPDATE and DELETE). */
  oldObject?: KubeObject;
  user?: UserInfo;
  dryRun: boolean;
  /** Adds a warning to the response (a `Warning` header); absent outside a request. */
  warn?: (message: string) => void;
  /**
   * Audit annotations plugins record (`pod-security.kubernetes.io/audit-violations`, webhooks'
   * `<webhook>/<key>`, ...).
   */
  auditAnnotations?: Record<string, string>;
}

/** One admission plugin. */
export interface AdmissionPlugin {
  name: string;
  /** Mutating phase; may change `attrs.object`. */
  admit?(attrs: AdmissionAttributes): Promise<void> | void;
  /** Validating phase; throws a StatusError to reject. */
  validate?(attrs: AdmissionAttributes): Promise<void> | void;
}

/** Runs plugins in order: every mutating phase, then every validating phase. */
export class AdmissionChain {
  constructor(readonly plugins: AdmissionPlugin[] = []) {}

  /** Runs the mutating phase of every plugin. */
  async admit(attrs: AdmissionAttributes): Promise<void> {
    for (const p of this.plugins) if (p.admit) await p.admit(attrs);
  }

  /** Runs the validating phase of every plugin. */
  async validate(attrs: AdmissionAttributes): Promise<void> {
    for (const p of this.plugins) if (p.validate) await p.validate(attrs);
  }
}
