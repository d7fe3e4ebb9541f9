/**
 * Message descriptors of authentication.k8s.io/v1 (k8s.io/api/authentication/v1), Kubernetes 1.32.
 *
 * Field numbers, wire types and JSON names are the facts of the upstream API types; the table format
 * is ours (see {@link MessageTable}).
 *
 * @module
 */
import type { MessageTable } from "../message_descriptor.ts";

/** Messages of authentication.k8s.io/v1 (k8s.io/api/authentication/v1). */
export const authenticationV1Messages: MessageTable = {
  "authentication.v1.BoundObjectReference": [
    [1, "kind", "string"],
    [2, "apiVersion", "string"],
    [3, "name", "string"],
    [4, "uid", "string"],
  ],
  "authentication.v1.ExtraValue": [
    [1, "items", "[]string"],
  ],
  "authentication.v1.SelfSubjectReview": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "status", "authentication.v1.SelfSubjectReviewStatus"],
  ],
  "authentication.v1.SelfSubjectReviewStatus": [
    [1, "userInfo", "authentication.v1.UserInfo"],
  ],
  "authentication.v1.TokenRequest": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "spec", "authentication.v1.TokenRequestSpec"],
    [3, "status", "authentication.v1.TokenRequestStatus"],
  ],
  "authentication.v1.TokenRequestSpec": [
    [1, "audiences", "[]string"],
    [4, "expirationSeconds", "int64", 1],
    [3, "boundObjectRef", "authentication.v1.BoundObjectReference"],
  ],
  "authentication.v1.TokenRequestStatus": [
    [1, "token", "string", 1],
    [2, "expirationTimestamp", "meta.v1.Time"],
  ],
  "authentication.v1.TokenReview": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "spec", "authentication.v1.TokenReviewSpec"],
    [3, "status", "authentication.v1.TokenReviewStatus"],
  ],
  "authentication.v1.TokenReviewSpec": [
    [1, "token", "string"],
    [2, "audiences", "[]string"],
  ],
  "authentication.v1.TokenReviewStatus": [
    [1, "authenticated", "bool"],
    [2, "user", "authentication.v1.UserInfo"],
    [4, "audiences", "[]string"],
    [3, "error", "string"],
  ],
  "authentication.v1.UserInfo": [
    [1, "username", "string"],
    [2, "uid", "string"],
    [3, "groups", "[]string"],
    [4, "extra", "map:authentication.v1.ExtraValue"],
  ],
};
