/**
 * `resourceclaims/status`: kube 1.32's checks of a status update (validateResourceClaimStatusUpdate):
 * consumers with a resource, name and unique uid, reserved only while allocated and not added
 * once the claim is being deleted, an allocation that never changes once set (it may be
 * removed), and results that name requests of the claim.
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import {
  duplicate,
  forbidden,
  invalid,
  required,
} from "../../../../shared/api/validation/field_errors.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import { STATUS_SUBRESOURCE, type SubresourceDef } from "../../generic/kind.ts";
import { listOf, objectOf } from "../../generic/table_columns.ts";
import { str, tooMany } from "../device_validation.ts";
import { immutable } from "./immutable.ts";

/** ResourceClaimReservedForMaxSize. */
const MAX_RESERVED_FOR = 256;

function validateReservedFor(reservedFor: unknown): FieldError[] {
  const list = listOf(reservedFor), f = "status.reservedFor";
  if (list.length > MAX_RESERVED_FOR) return [tooMany(f, list.length, MAX_RESERVED_FOR)];
  const errs: FieldError[] = [], uids = new Set<string>();
  for (const [i, ref] of list.entries()) {
    for (const k of ["resource", "name", "uid"]) {
      if (str(ref[k]) === "") errs.push(required(`${f}[${i}].${k}`));
    }
    const uid = str(ref.uid);
    if (uid !== "" && uids.has(uid)) errs.push(duplicate(`${f}[${i}].uid`, uid));
    uids.add(uid);
  }
  return errs;
}

/** The requests an allocation's results name are the claim's. */
function validateAllocation(allocation: Record<string, unknown>, claim: KubeObject): FieldError[] {
  const names = new Set(
    listOf(objectOf(objectOf(claim.spec).devices).requests).map((r) => str(r.name)),
  );
  const errs: FieldError[] = [];
  const results = listOf(objectOf(allocation.devices).results);
  for (const [i, r] of results.entries()) {
    const f = `status.allocation.devices.results[${i}]`;
    if (!names.has(str(r.request))) {
      errs.push(
        invalid(`${f}.request`, str(r.request), "must be the name of a request in the claim"),
      );
    }
    for (const k of ["driver", "pool", "device"]) {
      if (str(r[k]) === "") errs.push(required(`${f}.${k}`));
    }
  }
  return errs;
}

/** validateResourceClaimStatusUpdate. */
export function validateClaimStatus(obj: KubeObject, old: KubeObject): FieldError[] {
  const status = objectOf(obj.status), oldStatus = objectOf(old.status);
  const errs = validateReservedFor(status.reservedFor);
  const allocated = isObject(status.allocation);
  const reserved = listOf(status.reservedFor);
  if (reserved.length > 0 && !allocated) {
    errs.push(forbidden("status.reservedFor", "may not be specified when `allocated` is not set"));
  } else if (reserved.length > 0 && obj.metadata?.deletionTimestamp !== undefined) {
    const before = new Set(listOf(oldStatus.reservedFor).map((r) => str(r.uid)));
    if (reserved.some((r) => !before.has(str(r.uid)))) {
      errs.push(
        forbidden(
          "status.reservedFor",
          "new entries may not be added while `deallocationRequested` or `deletionTimestamp` are set",
        ),
      );
    }
  }
  if (allocated && isObject(oldStatus.allocation)) {
    errs.push(...immutable("status.allocation", status.allocation, oldStatus.allocation));
  } else if (allocated) {
    errs.push(...validateAllocation(status.allocation as Record<string, unknown>, obj));
  }
  return errs;
}

/** The status subresource of ResourceClaim, with kube's status checks. */
export const CLAIM_STATUS_SUBRESOURCE: SubresourceDef = {
  ...STATUS_SUBRESOURCE,
  validateUpdate: validateClaimStatus,
};
