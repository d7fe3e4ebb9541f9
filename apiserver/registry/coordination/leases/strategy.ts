/** Lease (coordination.k8s.io/v1): a lightweight heartbeat and lock. */
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import { invalid } from "../../../../shared/api/validation/field_errors.ts";
import type { KindDef, TableColumns } from "../../generic/kind.ts";
import {
  AGE_COLUMN,
  ageOf as age,
  column as col,
  NAME_COLUMN,
  objectOf as obj,
} from "../../generic/table_columns.ts";

/** Lease: Name, Holder, Age. */
const LEASE_COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    col("Holder", "string", "The holder of the lease."),
    AGE_COLUMN,
  ],
  cells: (o, now) => [
    o.metadata?.name ?? "",
    String(obj(o.spec).holderIdentity ?? ""),
    age(o, now),
  ],
};

/** The Lease kind. */
export const leaseKind: KindDef = {
  group: "coordination.k8s.io",
  version: "v1",
  kind: "Lease",
  plural: "leases",
  singular: "lease",
  namespaced: true,
  // As in Kubernetes, a PUT to a missing object creates it.
  allowCreateOnUpdate: true,
  strategy: {
    tableColumns: LEASE_COLUMNS,
    // The schema makes spec an object and holderIdentity a string (field validation answers
    // those before the store, and server-side apply's typed check too). Integers and times are
    // checked here as well: an applied configuration is only checked for map/list/scalar kinds.
    validate(obj) {
      const errs: FieldError[] = [];
      const spec = isObject(obj.spec) ? obj.spec : {};
      const duration = spec.leaseDurationSeconds, transitions = spec.leaseTransitions;
      if (duration !== undefined && !(Number.isInteger(duration) && Number(duration) > 0)) {
        errs.push(invalid("spec.leaseDurationSeconds", duration, "must be greater than 0"));
      }
      if (
        transitions !== undefined && !(Number.isInteger(transitions) && Number(transitions) >= 0)
      ) {
        errs.push(
          invalid("spec.leaseTransitions", transitions, "must be greater than or equal to 0"),
        );
      }
      for (const f of ["acquireTime", "renewTime"]) {
        const v = spec[f];
        if (
          v !== undefined && v !== null && (typeof v !== "string" || Number.isNaN(Date.parse(v)))
        ) {
          errs.push(invalid(`spec.${f}`, v, "must be an RFC 3339 time"));
        }
      }
      return errs;
    },
  },
};
