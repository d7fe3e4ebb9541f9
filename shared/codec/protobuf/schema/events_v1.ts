/**
 * Message descriptors of events.k8s.io/v1 (k8s.io/api/events/v1), Kubernetes 1.32.
 *
 * Field numbers, wire types and JSON names are the facts of the upstream API types; the table format
 * is ours (see {@link MessageTable}).
 *
 * @module
 */
import type { MessageTable } from "../message_descriptor.ts";

/** Messages of events.k8s.io/v1 (k8s.io/api/events/v1). */
export const eventsV1Messages: MessageTable = {
  "events.v1.Event": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "eventTime", "meta.v1.MicroTime"],
    [3, "series", "events.v1.EventSeries"],
    [4, "reportingController", "string"],
    [5, "reportingInstance", "string"],
    [6, "action", "string"],
    [7, "reason", "string"],
    [8, "regarding", "core.v1.ObjectReference"],
    [9, "related", "core.v1.ObjectReference"],
    [10, "note", "string"],
    [11, "type", "string"],
    [12, "deprecatedSource", "core.v1.EventSource"],
    [13, "deprecatedFirstTimestamp", "meta.v1.Time"],
    [14, "deprecatedLastTimestamp", "meta.v1.Time"],
    [15, "deprecatedCount", "int32"],
  ],
  "events.v1.EventList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]events.v1.Event"],
  ],
  "events.v1.EventSeries": [
    [1, "count", "int32", 1],
    [2, "lastObservedTime", "meta.v1.MicroTime"],
  ],
};
