/** Event (core/v1): a record of something that happened to an object. */
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import { invalid, notSupported } from "../../../../shared/api/validation/field_errors.ts";
import type { KindDef, TableColumns } from "../../generic/kind.ts";
import {
  ageCell,
  column as col,
  NAME_COLUMN,
  objectOf as obj,
} from "../../generic/table_columns.ts";

const INVOLVED = ["kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath"];

/** core/v1 Event: Last Seen, Type, Reason, Object, Message; wide: more. */
export const EVENT_COLUMNS: TableColumns = {
  columns: [
    col("Last Seen", "string", "Time when last this event was observed."),
    col(
      "Type",
      "string",
      "Type of this event (Normal, Warning), new types could be added in the future.",
    ),
    col(
      "Reason",
      "string",
      "The reason this event was generated. 'Reason' should be short and unique; it should be in UpperCamelCase format (starting with a capital letter).",
    ),
    col("Object", "string", "The object that this event is about."),
    col("Subobject", "string", "The subobject this event is about.", 1),
    col(
      "Source",
      "string",
      "The component reporting this event. Should be a short machine understandable string.",
      1,
    ),
    col("Message", "string", "A human-readable description of the status of this operation."),
    col("First Seen", "string", "The first time at which the event was observed.", 1),
    col("Count", "string", "The number of times this event has occurred.", 1),
    { ...NAME_COLUMN, priority: 1 },
  ],
  cells(o, now) {
    const inv = obj(o.involvedObject), src = obj(o.source), series = obj(o.series);
    const last = series.lastObservedTime ?? o.lastTimestamp ?? o.eventTime ??
      o.metadata?.creationTimestamp;
    const first = o.firstTimestamp ?? o.eventTime ?? o.metadata?.creationTimestamp;
    const kind = String(inv.kind ?? "").toLowerCase();
    const source = [src.component ?? o.reportingComponent, src.host ?? o.reportingInstance]
      .filter((x) => x).join(", ");
    return [
      ageCell(last, now),
      String(o.type ?? ""),
      String(o.reason ?? ""),
      `${kind}/${inv.name ?? ""}`,
      String(inv.fieldPath ?? ""),
      source,
      String(o.message ?? "").trim(),
      ageCell(first, now),
      Number(series.count ?? o.count ?? 1),
      o.metadata?.name ?? "",
    ];
  },
};

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
      // The schema makes involvedObject an object.
      const errs: FieldError[] = [];
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
      // As Kubernetes: events written through events.k8s.io/v1 have no source; their
      // reporting controller stands in.
      fields.source = String(src.component || obj.reportingComponent || "");
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
