/**
 * SelfSubjectReview (`authentication.k8s.io/v1`): a virtual, create-only kind that answers
 * with the identity the request runs as (after impersonation) in `status.userInfo`.
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../../../shared/errors/status_error.ts";
import type { UserInfo } from "../../../../shared/api/authentication/v1/user_info.ts";
import { rfc3339 } from "../../generic/clock.ts";
import type { KindDef } from "../../generic/kind.ts";

/** The `user` / `userInfo` object of the review APIs (empty fields omitted, as Go does). */
export function userInfoObject(user: UserInfo): Record<string, unknown> {
  const out: Record<string, unknown> = { username: user.username };
  if (user.uid) out.uid = user.uid;
  if (user.groups.length) out.groups = [...user.groups];
  if (user.extra && Object.keys(user.extra).length) out.extra = structuredClone(user.extra);
  return out;
}

/** The SelfSubjectReview kind. */
export const selfSubjectReviewKind: KindDef = {
  group: "authentication.k8s.io",
  version: "v1",
  kind: "SelfSubjectReview",
  plural: "selfsubjectreviews",
  singular: "selfsubjectreview",
  namespaced: false,
  verbs: ["create"],
  virtual: {
    create(args): Promise<KubeObject> {
      if (!args.user) return Promise.reject(StatusError.unauthorized());
      return Promise.resolve({
        apiVersion: "authentication.k8s.io/v1",
        kind: "SelfSubjectReview",
        metadata: { creationTimestamp: rfc3339(Date.now()) },
        status: { userInfo: userInfoObject(args.user) },
      });
    },
  },
  strategy: { validate: () => [] },
};
