/** The schema declaration of autoscaling/v1 Scale (the `scale` subresource's kind). */
import type { GroupSchema } from "../../schema/group_schema.ts";

/** autoscaling/v1 (Scale only). */
export const autoscalingV1Schema: GroupSchema = {
  package: "autoscaling.v1",
  group: "autoscaling",
  version: "v1",
  openApiPrefix: "io.k8s.api.autoscaling.v1",
  kinds: ["Scale"],
  types: {
    Scale: { description: "Scale represents a scaling request for a resource." },
    ScaleSpec: { fields: { replicas: { description: "The desired number of instances." } } },
    ScaleStatus: {
      required: ["replicas"],
      fields: {
        replicas: { description: "The actual number of observed instances." },
        selector: { description: "Label query over the pods, in the string form of selectors." },
      },
    },
  },
};
