/** The schema declaration of coordination.k8s.io/v1alpha2 (LeaseCandidate, off by default). */
import type { GroupSchema } from "../../schema/group_schema.ts";

/** coordination.k8s.io/v1alpha2. */
export const coordinationV1alpha2Schema: GroupSchema = {
  package: "coordination.v1alpha2",
  group: "coordination.k8s.io",
  version: "v1alpha2",
  openApiPrefix: "io.k8s.api.coordination.v1alpha2",
  kinds: ["LeaseCandidate", "LeaseCandidateList"],
  types: {
    LeaseCandidate: {
      description: "A candidate for a Lease managed by coordinated leader election.",
    },
    LeaseCandidateList: { required: ["items"] },
    LeaseCandidateSpec: {
      documentedRequired: ["leaseName", "binaryVersion"],
      fields: {
        leaseName: { description: "The Lease this candidate contends for; immutable." },
        pingTime: { description: "When the leader last asked the candidate to renew." },
        renewTime: { description: "When the candidate last renewed." },
        binaryVersion: { description: "The candidate's binary version (semver, no leading v)." },
        emulationVersion: { description: "The version the candidate emulates (semver)." },
        strategy: { description: "The strategy for picking a leader: OldestEmulationVersion." },
      },
    },
  },
};
