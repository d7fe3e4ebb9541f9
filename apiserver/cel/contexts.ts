/**
 * Ready-made environments for the consumers of the expression language: custom resource
 * validation rules, admission policies, authentication claim rules and mappings, user
 * validation rules and authorization webhook match conditions.
 *
 * @module
 */
import { CelEnvironment } from "./environment.ts";
import type { CelSchema } from "./values.ts";

const str: CelSchema = { type: "string" };
const strList: CelSchema = { type: "array", items: str };
const extra: CelSchema = { type: "object", additionalProperties: strList };
const gvk: CelSchema = { type: "object", properties: { group: str, version: str, kind: str } };
const gvr: CelSchema = { type: "object", properties: { group: str, version: str, resource: str } };

/** The schema of `user` in user validation rules (authentication.k8s.io UserInfo). */
export const USER_INFO_SCHEMA: CelSchema = {
  type: "object",
  properties: { username: str, uid: str, groups: strList, extra },
};

/** The schema of `request` in admission policies (AdmissionRequest). */
export const ADMISSION_REQUEST_SCHEMA: CelSchema = {
  type: "object",
  properties: {
    uid: str,
    kind: gvk,
    resource: gvr,
    subResource: str,
    requestKind: gvk,
    requestResource: gvr,
    requestSubResource: str,
    name: str,
    namespace: str,
    operation: str,
    userInfo: USER_INFO_SCHEMA,
    dryRun: { type: "boolean" },
    options: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
  },
};

/** The schema of `request` in authorization match conditions (SubjectAccessReviewSpec). */
export const SUBJECT_ACCESS_REVIEW_SPEC_SCHEMA: CelSchema = {
  type: "object",
  properties: {
    resourceAttributes: {
      type: "object",
      properties: {
        namespace: str,
        verb: str,
        group: str,
        version: str,
        resource: str,
        subresource: str,
        name: str,
        fieldSelector: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
        labelSelector: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
      },
    },
    nonResourceAttributes: { type: "object", properties: { path: str, verb: str } },
    user: str,
    groups: strList,
    extra,
    uid: str,
  },
};

/** Options for CRD validation rule environments. */
export interface CrdValidationOptions {
  /** Declare `oldSelf` (transition rules). Default true. */
  oldSelf?: boolean;
}

/** `self`/`oldSelf` typed from the schema node the rule sits on. */
export function crdValidationEnvironment(
  schema: CelSchema,
  opts: CrdValidationOptions = {},
): CelEnvironment {
  const variables = [{ name: "self", schema }];
  if (opts.oldSelf !== false) variables.push({ name: "oldSelf", schema });
  return CelEnvironment.create({ variables });
}

/** Options for admission policy environments. */
export interface AdmissionPolicyOptions {
  /** Schema of `params` when the policy has a param kind; dynamic otherwise. */
  paramsSchema?: CelSchema;
  /** Declare `authorizer`. Default true. */
  authorizer?: boolean;
}

/**
 * `object`, `oldObject`, `params`, `namespaceObject` (dynamic), `request` (typed AdmissionRequest)
 * and `authorizer`.
 */
export function admissionPolicyEnvironment(opts: AdmissionPolicyOptions = {}): CelEnvironment {
  return CelEnvironment.create({
    variables: [
      { name: "object" },
      { name: "oldObject" },
      { name: "params", schema: opts.paramsSchema },
      { name: "namespaceObject" },
      { name: "variables", type: "map<string, dyn>" },
      { name: "request", schema: ADMISSION_REQUEST_SCHEMA, escapeNames: false },
    ],
    authorizer: opts.authorizer !== false,
  });
}

/** `claims`: the token's claims as a map of claim name to value. */
export function claimMappingEnvironment(): CelEnvironment {
  return CelEnvironment.create({ variables: [{ name: "claims", type: "map<string, dyn>" }] });
}

/** `user`: the UserInfo produced by the claim mappings. */
export function userValidationEnvironment(): CelEnvironment {
  return CelEnvironment.create({
    variables: [{ name: "user", schema: USER_INFO_SCHEMA, escapeNames: false }],
  });
}

/** `request`: the SubjectAccessReview spec sent to an authorization webhook. */
export function authorizationMatchEnvironment(): CelEnvironment {
  return CelEnvironment.create({
    variables: [
      { name: "request", schema: SUBJECT_ACCESS_REVIEW_SPEC_SCHEMA, escapeNames: false },
    ],
  });
}
