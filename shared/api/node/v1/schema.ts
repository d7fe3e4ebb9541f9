/** The schema declaration of node.k8s.io/v1 (RuntimeClass). */
import { ATOMIC_LIST, type GroupSchema } from "../../schema/group_schema.ts";

/** node.k8s.io/v1. */
export const nodeV1Schema: GroupSchema = {
  package: "node.v1",
  group: "node.k8s.io",
  version: "v1",
  openApiPrefix: "io.k8s.api.node.v1",
  kinds: ["RuntimeClass", "RuntimeClassList"],
  types: {
    RuntimeClass: {
      description:
        "RuntimeClass defines a class of container runtime supported in the cluster, named by " +
        "pods' runtimeClassName.",
      fields: {
        handler: {
          description: "The CRI runtime handler of pods of this class (a DNS label, immutable).",
        },
        overhead: { description: "The resource overhead of running a pod of this class." },
        scheduling: { description: "Constraints on the nodes that support this class." },
      },
    },
    RuntimeClassList: { required: ["items"] },
    Scheduling: {
      fields: { nodeSelector: { mapType: "atomic" }, tolerations: ATOMIC_LIST },
    },
  },
};
