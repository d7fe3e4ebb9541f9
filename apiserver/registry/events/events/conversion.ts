/**
 * Conversion of Event between core/v1 (stored) and events.k8s.io/v1, as Kubernetes converts it
 * (pkg/apis/events/v1/conversion.go): the same fields under new names (regarding for
 * involvedObject, note for message, reportingController for reportingComponent) and the
 * core-only ones kept as deprecated* fields, so that both directions lose nothing.
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { cloneValue } from "../../generic/clone_value.ts";

/** events.k8s.io/v1 field → core/v1 field, in events.k8s.io/v1's field order. */
export const EVENTS_V1_TO_CORE: Readonly<Record<string, string>> = {
  eventTime: "eventTime",
  series: "series",
  reportingController: "reportingComponent",
  reportingInstance: "reportingInstance",
  action: "action",
  reason: "reason",
  regarding: "involvedObject",
  related: "related",
  note: "message",
  type: "type",
  deprecatedSource: "source",
  deprecatedFirstTimestamp: "firstTimestamp",
  deprecatedLastTimestamp: "lastTimestamp",
  deprecatedCount: "count",
};

/** The order of core/v1 Event's fields. */
const CORE_ORDER = [
  "involvedObject",
  "reason",
  "message",
  "source",
  "firstTimestamp",
  "lastTimestamp",
  "count",
  "type",
  "eventTime",
  "series",
  "action",
  "related",
  "reportingComponent",
  "reportingInstance",
];

const CORE_TO_EVENTS_V1: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(EVENTS_V1_TO_CORE).map(([v1, core]) => [core, v1]),
);

function renamed(
  obj: KubeObject,
  apiVersion: string,
  order: readonly string[],
  from: Readonly<Record<string, string>>,
): KubeObject {
  const out: KubeObject = {
    apiVersion,
    kind: "Event",
    metadata: cloneValue(obj.metadata ?? {}),
  };
  for (const field of order) {
    const source = from[field];
    const v = obj[source];
    if (v !== undefined) out[field] = cloneValue(v);
  }
  return out;
}

/** A stored core/v1 Event in the events.k8s.io/v1 form. */
export function coreEventToEventsV1(obj: KubeObject): KubeObject {
  return renamed(obj, "events.k8s.io/v1", Object.keys(EVENTS_V1_TO_CORE), EVENTS_V1_TO_CORE);
}

/** An events.k8s.io/v1 Event in the stored core/v1 form. */
export function eventsV1ToCoreEvent(obj: KubeObject): KubeObject {
  return renamed(obj, "v1", CORE_ORDER, CORE_TO_EVENTS_V1);
}
