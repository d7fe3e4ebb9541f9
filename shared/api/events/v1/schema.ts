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
      required: ["eventTime"],
    },
    EventList: { required: ["items"] },
    EventSeries: { required: ["count", "lastObservedTime"] },
  },
};
