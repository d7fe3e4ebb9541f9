/** The schema declaration of authorization.k8s.io/v1 (the access review kinds). */
import { ATOMIC_LIST, type GroupSchema } from "../../schema/group_schema.ts";

/** authorization.k8s.io/v1. */
export const authorizationV1Schema: GroupSchema = {
  package: "authorization.v1",
  group: "authorization.k8s.io",
  version: "v1",
  openApiPrefix: "io.k8s.api.authorization.v1",
  kinds: [
    "SubjectAccessReview",
    "SelfSubjectAccessReview",
    "LocalSubjectAccessReview",
    "SelfSubjectRulesReview",
  ],
  types: {
    SubjectAccessReview: {
      description: "Checks whether a user may perform an action.",
      required: ["spec"],
    },
    SelfSubjectAccessReview: {
      description: "Checks whether the requester may perform an action.",
      required: ["spec"],
    },
    LocalSubjectAccessReview: {
      description: "Checks whether a user may perform an action in one namespace.",
      required: ["spec"],
    },
    SelfSubjectRulesReview: {
      description: "Lists the actions the requester may perform in a namespace.",
      required: ["spec"],
    },
    SubjectAccessReviewSpec: { fields: { groups: ATOMIC_LIST } },
    SubjectAccessReviewStatus: { required: ["allowed"] },
    ResourceRule: {
      required: ["verbs"],
      fields: {
        verbs: ATOMIC_LIST,
        apiGroups: ATOMIC_LIST,
        resources: ATOMIC_LIST,
        resourceNames: ATOMIC_LIST,
      },
    },
    NonResourceRule: {
      required: ["verbs"],
      fields: { verbs: ATOMIC_LIST, nonResourceURLs: ATOMIC_LIST },
    },
    SubjectRulesReviewStatus: {
      required: ["resourceRules", "nonResourceRules", "incomplete"],
      fields: { resourceRules: ATOMIC_LIST, nonResourceRules: ATOMIC_LIST },
    },
  },
};
