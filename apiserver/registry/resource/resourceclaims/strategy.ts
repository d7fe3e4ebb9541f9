/**
 * ResourceClaim (resource.k8s.io/v1beta1, kube 1.32's storage version; off by default): a
 * request for devices. The spec never changes; the status is written through `status`.
 * Defaults, validation and columns as kube's.
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import type { KindDef, TableColumns } from "../../generic/kind.ts";
import {
  AGE_COLUMN,
  ageOf,
  column,
  listOf,
  NAME_COLUMN,
  objectOf,
} from "../../generic/table_columns.ts";
import { defaultRequests, validateDeviceClaim } from "../device_validation.ts";
import { CLAIM_STATUS_SUBRESOURCE } from "./claim_status.ts";
import { immutable } from "./immutable.ts";

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

/** The ResourceClaim kind. */
export const resourceClaimKind: KindDef = {
  group: "resource.k8s.io",
  version: "v1beta1",
  kind: "ResourceClaim",
  plural: "resourceclaims",
  singular: "resourceclaim",
  namespaced: true,
  subresources: [CLAIM_STATUS_SUBRESOURCE],
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
