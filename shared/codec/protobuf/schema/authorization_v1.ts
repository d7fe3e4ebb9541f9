/**
 * Message descriptors of authorization.k8s.io/v1 (k8s.io/api/authorization/v1), Kubernetes 1.32.
 *
 * Field numbers, wire types and JSON names are the facts of the upstream API types; the table format
 * is ours (see {@link MessageTable}).
 *
 * @module
 */
import type { MessageTable } from "../message_descriptor.ts";

/** Messages of authorization.k8s.io/v1 (k8s.io/api/authorization/v1). */
export const authorizationV1Messages: MessageTable = {
  "authorization.v1.ExtraValue": [
    [1, "items", "[]string"],
  ],
  "authorization.v1.FieldSelectorAttributes": [
    [1, "rawSelector", "string"],
    [2, "requirements", "[]meta.v1.FieldSelectorRequirement"],
  ],
  "authorization.v1.LabelSelectorAttributes": [
    [1, "rawSelector", "string"],
    [2, "requirements", "[]meta.v1.LabelSelectorRequirement"],
  ],
  "authorization.v1.LocalSubjectAccessReview": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "spec", "authorization.v1.SubjectAccessReviewSpec"],
    [3, "status", "authorization.v1.SubjectAccessReviewStatus"],
  ],
  "authorization.v1.NonResourceAttributes": [
    [1, "path", "string"],
    [2, "verb", "string"],
  ],
  "authorization.v1.NonResourceRule": [
    [1, "verbs", "[]string"],
    [2, "nonResourceURLs", "[]string"],
  ],
  "authorization.v1.ResourceAttributes": [
    [1, "namespace", "string"],
    [2, "verb", "string"],
    [3, "group", "string"],
    [4, "version", "string"],
    [5, "resource", "string"],
    [6, "subresource", "string"],
    [7, "name", "string"],
    [8, "fieldSelector", "authorization.v1.FieldSelectorAttributes"],
    [9, "labelSelector", "authorization.v1.LabelSelectorAttributes"],
  ],
  "authorization.v1.ResourceRule": [
    [1, "verbs", "[]string"],
    [2, "apiGroups", "[]string"],
    [3, "resources", "[]string"],
    [4, "resourceNames", "[]string"],
  ],
  "authorization.v1.SelfSubjectAccessReview": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "spec", "authorization.v1.SelfSubjectAccessReviewSpec"],
    [3, "status", "authorization.v1.SubjectAccessReviewStatus"],
  ],
  "authorization.v1.SelfSubjectAccessReviewSpec": [
    [1, "resourceAttributes", "authorization.v1.ResourceAttributes"],
    [2, "nonResourceAttributes", "authorization.v1.NonResourceAttributes"],
  ],
  "authorization.v1.SelfSubjectRulesReview": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "spec", "authorization.v1.SelfSubjectRulesReviewSpec"],
    [3, "status", "authorization.v1.SubjectRulesReviewStatus"],
  ],
  "authorization.v1.SelfSubjectRulesReviewSpec": [
    [1, "namespace", "string"],
  ],
  "authorization.v1.SubjectAccessReview": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "spec", "authorization.v1.SubjectAccessReviewSpec"],
    [3, "status", "authorization.v1.SubjectAccessReviewStatus"],
  ],
  "authorization.v1.SubjectAccessReviewSpec": [
    [1, "resourceAttributes", "authorization.v1.ResourceAttributes"],
    [2, "nonResourceAttributes", "authorization.v1.NonResourceAttributes"],
    [3, "user", "string"],
    [4, "groups", "[]string"],
    [5, "extra", "map:authorization.v1.ExtraValue"],
    [6, "uid", "string"],
  ],
  "authorization.v1.SubjectAccessReviewStatus": [
    [1, "allowed", "bool", 1],
    [4, "denied", "bool"],
    [2, "reason", "string"],
    [3, "evaluationError", "string"],
  ],
  "authorization.v1.SubjectRulesReviewStatus": [
    [1, "resourceRules", "[]authorization.v1.ResourceRule"],
    [2, "nonResourceRules", "[]authorization.v1.NonResourceRule"],
    [3, "incomplete", "bool", 1],
    [4, "evaluationError", "string"],
  ],
};
