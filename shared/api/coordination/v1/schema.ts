/** The schema declaration of coordination.k8s.io/v1 (Lease). */
import type { GroupSchema } from "../../schema/group_schema.ts";

/** coordination.k8s.io/v1. */
export const coordinationV1Schema: GroupSchema = {
  package: "coordination.v1",
  group: "coordination.k8s.io",
  version: "v1",
  openApiPrefix: "io.k8s.api.coordination.v1",
  kinds: ["Lease", "LeaseList"],
  types: {
    Lease: {
      description:
        "Lease records who holds a lock and until when (leader election, node heartbeats).",
    },
    LeaseList: { required: ["items"] },
    LeaseSpec: {
      fields: {
        holderIdentity: { description: "Identity of the current holder." },
        leaseDurationSeconds: { description: "How long candidates wait before taking over." },
        renewTime: { description: "When the holder last renewed the lease." },
      },
    },
  },
};
