/**
 * Preconditions of writes: what the stored object must still be (its uid, its
 * resourceVersion) for an update or a delete to go ahead; 409 Conflict when it is not.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";

/** What the stored object must still be. */
export interface Preconditions {
  uid?: string;
  resourceVersion?: string;
}

type GroupResource = { group: string; resource: string };

/** The preconditions of an update (If-Match of a patch): 409 when `current` differs. */
export function checkPreconditions(
  gr: GroupResource,
  current: KubeObject,
  pre: Preconditions,
): void {
  const name = current.metadata.name ?? "";
  if (pre.uid && pre.uid !== current.metadata.uid) {
    throw StatusError.conflict(
      gr,
      name,
      `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${current.metadata.uid}`,
    );
  }
  if (pre.resourceVersion && pre.resourceVersion !== current.metadata.resourceVersion) {
    throw StatusError.conflict(gr, name);
  }
}

/** The preconditions of a delete (DeleteOptions.preconditions), with their messages. */
export function checkDeletePreconditions(
  gr: GroupResource,
  current: KubeObject,
  pre: Preconditions | undefined,
): void {
  const name = current.metadata.name ?? "";
  if (pre?.uid && pre.uid !== current.metadata.uid) {
    throw StatusError.conflict(
      gr,
      name,
      `the UID in the precondition (${pre.uid}) does not match the UID in record (${current.metadata.uid}). The object might have been recreated`,
    );
  }
  if (pre?.resourceVersion && pre.resourceVersion !== current.metadata.resourceVersion) {
    throw StatusError.conflict(
      gr,
      name,
      `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${current.metadata.resourceVersion}). The object might have been modified`,
    );
  }
}
