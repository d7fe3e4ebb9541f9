/**
 * The options of a write through the generic store: who writes, dry run, the field manager,
 * warnings and audit annotations for the response, and what admission needs to know.
 *
 * @module
 */
import type { UserInfo } from "../../../shared/api/authentication/v1/user_info.ts";
import type { KindDef } from "./kind.ts";

/** Options common to writes. */
export interface WriteOptions {
  dryRun?: boolean;
  user?: UserInfo;
  /** The field manager of the write (query `fieldManager`). */
  fieldManager?: string;
  /** The request's User-Agent: names the manager when fieldManager is absent. */
  userAgent?: string;
  /** The body's managedFields were computed by server-side apply (no Update is recorded). */
  applied?: boolean;
  /** Adds a warning to the response (a `Warning` header); admission plugins call it. */
  warn?: (message: string) => void;
  /** The kind the request was sent as, when served from this store's kind (admission sees it). */
  requestKind?: KindDef;
  /** The request's `fieldValidation`, as admission's options report it. */
  fieldValidation?: string;
  /**
   * An inner write of a request admitted as a whole (a binding, an eviction): no admission,
   * as kube's registry passes rest.ValidateAllObjectFunc for them.
   */
  skipAdmission?: boolean;
  /** The request's audit annotations, when it is audited; admission plugins add to them. */
  auditAnnotations?: Record<string, string>;
}

/** Options of an update: the write options, the subresource, and whether to create. */
export interface UpdateOptions extends WriteOptions {
  /** The subresource written (e.g. `status`); absent for the main resource. */
  subresource?: string;
  /** A missing object is created from `tryUpdate(undefined)` (PUT of some kinds, apply). */
  allowCreate?: boolean;
}
