/**
 * Who a request runs as: the user an authenticator identified (Kubernetes' `user.Info`, in the
 * shape of authentication.k8s.io/v1 `UserInfo` that TokenReview and SelfSubjectReview return),
 * and the group whose members every authorizer allows.
 *
 * @module
 */

/** The user a request runs as. */
export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** Members of this group may do anything (Kubernetes' `user.SystemPrivilegedGroup`). */
export const SYSTEM_PRIVILEGED_GROUP = "system:masters";
