/** The schema declaration of events.k8s.io/v1 (Event). */
import type { GroupSchema } from "../../schema/group_schema.ts";

/** events.k8s.io/v1. */
export const eventsV1Schema: GroupSchema = {
  package: "events.v1",
  group: "events.k8s.io",
  version: "v1",
  openApiPrefix: "io.k8s.api.events.v1",
  kinds: ["Event", "EventList"],
  types: {
    Event: {
      description: "Event is a report of something that happened in the cluster.",
      documentedRequired: ["eventTime"],
      fields: {
        eventTime: { description: "When the event was first observed." },
        series: { description: "The series this event belongs to; unset for a single event." },
        reportingController: {
          description: "The controller that emitted the event, e.g. kubernetes.io/kubelet.",
        },
        reportingInstance: { description: "The instance of that controller, e.g. kubelet-xyz." },
        action: { description: "What was done (or failed) to the regarding object." },
        reason: { description: "Why the action was taken." },
        regarding: { description: "The object the event is about." },
        related: { description: "A secondary object of the action, if any." },
        note: { description: "A human-readable description of what happened." },
        type: { description: "Normal or Warning." },
        deprecatedSource: { description: "The core/v1 Event source, kept for compatibility." },
        deprecatedFirstTimestamp: {
          description: "The core/v1 Event firstTimestamp, kept for compatibility.",
        },
        deprecatedLastTimestamp: {
          description: "The core/v1 Event lastTimestamp, kept for compatibility.",
        },
        deprecatedCount: { description: "The core/v1 Event count, kept for compatibility." },
      },
    },
    EventList: { required: ["items"] },
    EventSeries: {
      description: "A series of events that keeps happening, updated at each heartbeat.",
      required: ["count", "lastObservedTime"],
      fields: {
        count: { description: "How many times the event occurred up to the last heartbeat." },
        lastObservedTime: { description: "When the series was last seen before the heartbeat." },
      },
    },
  },
};
