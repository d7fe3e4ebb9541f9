/**
 * ResourceClaim (resource.k8s.io/v1beta1, kube 1.32's storage version; off by default): a
 * request for devices. The spec never changes; the status is written through `status`.
 * Defaults, validation and columns as kube's.
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import { invalid } from "../../../../shared/api/validation/field_errors.ts";
import { deepEqual } from "../../../../shared/json/deep_equal.ts";
import { type KindDef, STATUS_SUBRESOURCE, type TableColumns } from "../../generic/kind.ts";
import {
  AGE_COLUMN,
  ageOf,
  column,
  listOf,
  NAME_COLUMN,
  objectOf,
} from "../../generic/table_columns.ts";
import { defaultRequests, validateDeviceClaim } from "../device_validation.ts";

/** resourceClaimState: deleted, pending, allocated, reserved. */
function claimState(o: KubeObject): string {
  const status = objectOf(o.status), states: string[] = [];
  const deleted = o.metadata?.deletionTimestamp !== undefined;
  if (deleted) states.push("deleted");
  if (status.allocation === undefined || status.allocation === null) {
    if (!deleted) states.push("pending");
  } else {
    states.push("allocated");
    if (listOf(status.reservedFor).length > 0) states.push("reserved");
  }
  return states.join(",");
}

/** ResourceClaim: Name, State, Age. */
const COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    column(
      "State",
      "string",
      "A summary of the current state (allocated, pending, reserved, etc.).",
    ),
    AGE_COLUMN,
  ],
  cells: (o, now) => [o.metadata?.name ?? "", claimState(o), ageOf(o, now)],
};

/** SetDefaults of a claim's device requests. */
export function setClaimDefaults(o: KubeObject): void {
  defaultRequests(objectOf(o.spec).devices);
}

/** ValidateImmutableField: `value` at `field` is the old one. */
export function immutable(field: string, value: unknown, old: unknown): FieldError[] {
  return deepEqual(value ?? null, old ?? null)
    ? []
    : [invalid(field, value ?? null, "field is immutable")];
}

/** The ResourceClaim kind. */
export const resourceClaimKind: KindDef = {
  group: "resource.k8s.io",
  version: "v1beta1",
  kind: "ResourceClaim",
  plural: "resourceclaims",
  singular: "resourceclaim",
  namespaced: true,
  subresources: [STATUS_SUBRESOURCE],
  strategy: {
    tableColumns: COLUMNS,
    prepareForCreate(o) {
      setClaimDefaults(o);
      o.status = {};
    },
    prepareForUpdate: setClaimDefaults,
    validate: (o) => validateDeviceClaim("spec.devices", objectOf(o.spec).devices),
    validateUpdate: (o, old) => immutable("spec", o.spec, old.spec),
  },
};
