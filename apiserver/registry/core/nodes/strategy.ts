/** Node: cluster scoped, with a status subresource. */
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import { invalid, isObject, notSupported } from "../../generic/field_errors.ts";
import { type KindDef, STATUS_SUBRESOURCE } from "../../generic/kind.ts";
import { NODE_COLUMNS } from "../../../http/table/builtin_columns.ts";

const EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"];

/** The Node kind. */
export const nodeKind: KindDef = {
  group: "",
  version: "v1",
  kind: "Node",
  plural: "nodes",
  singular: "node",
  shortNames: ["no"],
  namespaced: false,
  subresources: [STATUS_SUBRESOURCE],
  strategy: {
    tableColumns: NODE_COLUMNS,
    validate(obj) {
      const errs: FieldError[] = [];
      if (obj.spec !== undefined && !isObject(obj.spec)) {
        errs.push(invalid("spec", obj.spec, "must be an object"));
      }
      const spec = isObject(obj.spec) ? obj.spec : {};
      if (spec.taints !== undefined) {
        if (!Array.isArray(spec.taints)) {
          errs.push(invalid("spec.taints", spec.taints, "must be a list"));
        } else {
          for (const [i, t] of spec.taints.entries()) {
            if (!isObject(t) || typeof t.key !== "string" || t.key === "") {
              errs.push({ type: "FieldValueRequired", field: `spec.taints[${i}].key`, detail: "" });
            } else if (!EFFECTS.includes(String(t.effect))) {
              errs.push(notSupported(`spec.taints[${i}].effect`, t.effect, EFFECTS));
            }
          }
        }
      }
      return errs;
    },
    selectableFields(obj) {
      const spec = isObject(obj.spec) ? obj.spec : {};
      return { "spec.unschedulable": String(spec.unschedulable === true) };
    },
    selectableFieldNames: ["spec.unschedulable"],
  },
};
