/** Event (core/v1): a record of something that happened to an object. */
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import { invalid, isObject, notSupported } from "../../generic/field_errors.ts";
import type { KindDef } from "../../generic/kind.ts";
import { EVENT_COLUMNS } from "../../../http/table/builtin_columns.ts";

const INVOLVED = ["kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath"];

/** The core/v1 Event kind. */
export const eventKind: KindDef = {
  group: "",
  version: "v1",
  kind: "Event",
  plural: "events",
  singular: "event",
  shortNames: ["ev"],
  namespaced: true,
  // As in Kubernetes, a PUT to a missing object creates it.
  allowCreateOnUpdate: true,
  strategy: {
    tableColumns: EVENT_COLUMNS,
    validate(obj) {
      const errs: FieldError[] = [];
      if (obj.involvedObject !== undefined && !isObject(obj.involvedObject)) {
        errs.push(invalid("involvedObject", obj.involvedObject, "must be an object"));
      }
      const io = isObject(obj.involvedObject) ? obj.involvedObject : {};
      if (io.namespace && io.namespace !== obj.metadata.namespace) {
        errs.push(
          invalid("involvedObject.namespace", io.namespace, "does not match event.namespace"),
        );
      }
      if (obj.type !== undefined && !["Normal", "Warning"].includes(String(obj.type))) {
        errs.push(notSupported("type", obj.type, ["Normal", "Warning"]));
      }
      return errs;
    },
    selectableFields(obj) {
      const io = isObject(obj.involvedObject) ? obj.involvedObject : {};
      const src = isObject(obj.source) ? obj.source : {};
      const fields: Record<string, string> = {};
      for (const f of INVOLVED) fields[`involvedObject.${f}`] = String(io[f] ?? "");
      fields.reason = String(obj.reason ?? "");
      fields.reportingComponent = String(obj.reportingComponent ?? "");
      fields.source = String(src.component ?? "");
      fields.type = String(obj.type ?? "");
      return fields;
    },
    selectableFieldNames: [
      ...INVOLVED.map((f) => `involvedObject.${f}`),
      "reason",
      "reportingComponent",
      "source",
      "type",
    ],
  },
};
