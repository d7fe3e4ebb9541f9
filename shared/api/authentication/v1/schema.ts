/** The schema declaration of authentication.k8s.io/v1 (TokenReview, TokenRequest, SelfSubjectReview). */
import { ATOMIC_LIST, type GroupSchema } from "../../schema/group_schema.ts";

/** authentication.k8s.io/v1. */
export const authenticationV1Schema: GroupSchema = {
  package: "authentication.v1",
  group: "authentication.k8s.io",
  version: "v1",
  openApiPrefix: "io.k8s.api.authentication.v1",
  kinds: ["TokenReview", "TokenRequest", "SelfSubjectReview"],
  types: {
    TokenReview: {
      description: "Asks whether a token is valid and whom it identifies.",
      required: ["spec"],
    },
    TokenReviewSpec: { fields: { audiences: ATOMIC_LIST } },
    TokenReviewStatus: { fields: { audiences: ATOMIC_LIST } },
    TokenRequest: { description: "Requests a token for a service account.", required: ["spec"] },
    TokenRequestSpec: { required: ["audiences"], fields: { audiences: ATOMIC_LIST } },
    TokenRequestStatus: { required: ["token", "expirationTimestamp"] },
    SelfSubjectReview: { description: "Returns the user information of the requester." },
    UserInfo: { fields: { groups: ATOMIC_LIST } },
  },
};
