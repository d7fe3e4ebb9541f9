/**
 * events.k8s.io/v1 Event, served from the core/v1 events store: the stricter rules Kubernetes
 * applies to events created and updated through this API (ValidateEventCreate and
 * ValidateEventUpdate, with their messages and internal field paths), its field selectors, and
 * the core Event's columns.
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import { invalid, required } from "../../../../shared/api/validation/field_errors.ts";
import { isQualifiedName } from "../../../../shared/api/validation/identifiers.ts";
import { deepEqual } from "../../../../shared/json/deep_equal.ts";
import type { KindDef } from "../../generic/kind.ts";
import { objectOf } from "../../generic/table_columns.ts";
import { EVENT_COLUMNS, eventKind } from "../../core/events/strategy.ts";
import { coreEventToEventsV1, EVENTS_V1_TO_CORE, eventsV1ToCoreEvent } from "./conversion.ts";

const LENGTH_LIMITS: readonly [field: string, path: string, limit: number][] = [
  ["reportingInstance", "reportingInstance", 128],
  ["action", "action", 128],
  ["reason", "reason", 128],
  ["note", "message", 1024],
];

/** legacyValidateEvent: the rules every event written through events.k8s.io/v1 passes. */
function legacyErrors(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const ns = obj.metadata.namespace ?? "";
  const regardingNs = String(objectOf(obj.regarding).namespace ?? "");
  const mismatch = () =>
    errs.push(invalid("involvedObject.namespace", regardingNs, "does not match event.namespace"));
  if (!obj.eventTime) {
    if (regardingNs === "" ? ns !== "" && ns !== "default" : ns !== regardingNs) mismatch();
    return errs;
  }
  if (regardingNs === "" && ns !== "default" && ns !== "kube-system") mismatch();
  const controller = String(obj.reportingController ?? "");
  if (controller === "") errs.push(required("reportingController"));
  for (const msg of isQualifiedName(controller)) {
    errs.push(invalid("reportingController", controller, msg));
  }
  for (const [field, path, limit] of LENGTH_LIMITS) {
    const v = String(obj[field] ?? "");
    if (v === "" && field !== "note") errs.push(required(path));
    if (v.length > limit) errs.push(invalid(path, "", `can have at most ${limit} characters`));
  }
  return errs;
}

function seriesErrors(obj: KubeObject): FieldError[] {
  if (obj.series === undefined || obj.series === null) return [];
  const series = objectOf(obj.series);
  const errs: FieldError[] = [];
  if (Number(series.count ?? 0) < 2) errs.push(invalid("series.count", "", "should be at least 2"));
  if (!series.lastObservedTime) errs.push(required("series.lastObservedTime"));
  return errs;
}

/** ValidateEventCreate for events.k8s.io/v1. */
export function validateEventsV1Create(obj: KubeObject): FieldError[] {
  const errs = [...legacyErrors(obj), ...seriesErrors(obj)];
  if (!obj.eventTime) errs.push(required("eventTime"));
  if (obj.type !== "Normal" && obj.type !== "Warning") {
    errs.push(invalid("type", "", `has invalid value: ${obj.type ?? ""}`));
  }
  for (const f of ["deprecatedFirstTimestamp", "deprecatedLastTimestamp", "deprecatedCount"]) {
    if (obj[f]) errs.push(invalid(f, "", "needs to be unset"));
  }
  const source = objectOf(obj.deprecatedSource);
  if (source.component || source.host) {
    errs.push(invalid("deprecatedSource", "", "needs to be unset"));
  }
  return errs;
}

/** ValidateEventUpdate for events.k8s.io/v1: legacy rules, then the immutable fields. */
export function validateEventsV1Update(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs = legacyErrors(obj);
  if (!deepEqual(obj.series, old.series)) errs.push(...seriesErrors(obj));
  for (const [field, corePath] of Object.entries(EVENTS_V1_TO_CORE)) {
    if (field === "series") continue;
    if (!deepEqual(obj[field] ?? null, old[field] ?? null)) {
      errs.push(invalid(corePath, obj[field] ?? "", "field is immutable"));
    }
  }
  return errs;
}

const REGARDING = [
  "kind",
  "namespace",
  "name",
  "uid",
  "apiVersion",
  "resourceVersion",
  "fieldPath",
];

/** events.k8s.io/v1 Event (stored as core/v1 Event). */
export const eventsV1EventKind: KindDef = {
  ...eventKind,
  group: "events.k8s.io",
  version: "v1",
  servedFrom: {
    storage: eventKind,
    toStorage: eventsV1ToCoreEvent,
    fromStorage: coreEventToEventsV1,
    fieldLabels: {
      ...Object.fromEntries(REGARDING.map((f) => [`regarding.${f}`, `involvedObject.${f}`])),
      reason: "reason",
      reportingController: "reportingComponent",
      source: "source",
      type: "type",
    },
  },
  strategy: {
    tableColumns: {
      columns: EVENT_COLUMNS.columns,
      cells: (o, now) => EVENT_COLUMNS.cells(eventsV1ToCoreEvent(o), now),
    },
    validate: validateEventsV1Create,
    validateUpdate: validateEventsV1Update,
  },
};
