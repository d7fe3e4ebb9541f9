/** The schema declaration of scheduling.k8s.io/v1 (PriorityClass). */
import type { GroupSchema } from "../../schema/group_schema.ts";

/** scheduling.k8s.io/v1. */
export const schedulingV1Schema: GroupSchema = {
  package: "scheduling.v1",
  group: "scheduling.k8s.io",
  version: "v1",
  openApiPrefix: "io.k8s.api.scheduling.v1",
  kinds: ["PriorityClass", "PriorityClassList"],
  types: {
    PriorityClass: {
      description:
        "PriorityClass maps a priority class name to the integer priority of the pods that " +
        "name it.",
      fields: {
        value: { description: "The priority of pods of this class (immutable)." },
        globalDefault: {
          description: "Whether this is the priority of pods that name no priority class.",
        },
        description: { description: "When this priority class should be used." },
        preemptionPolicy: {
          description: "Whether pods of this class preempt pods of lower priority.",
          enum: ["Never", "PreemptLowerPriority"],
          default: "PreemptLowerPriority",
        },
      },
    },
    PriorityClassList: { required: ["items"] },
  },
};
