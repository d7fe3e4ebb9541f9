/**
 * The review APIs of `authorization.k8s.io/v1`, answered by the same authorizer chain that
 * authorizes requests: SelfSubjectAccessReview (may the caller...), SubjectAccessReview (may
 * this user...), LocalSubjectAccessReview (the same, limited to a namespace) and
 * SelfSubjectRulesReview (what may the caller do in a namespace). All are virtual kinds: a
 * create computes the answer and stores nothing.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { type FieldError, StatusError } from "../../../shared/errors/status_error.ts";
import type { Authorizer, AuthzAttributes, RulesResult } from "../../auth/authz/authorizer.ts";
import type { UserInfo } from "../../../shared/api/authentication/v1/user_info.ts";
import { isObject } from "../../../shared/json/is_object.ts";
import { invalid, required } from "../../../shared/api/validation/field_errors.ts";
import type { CustomCreateArgs, KindDef } from "../generic/kind.ts";

/** The group of the review APIs. */
export const AUTHORIZATION_GROUP = "authorization.k8s.io";

/** The chain the reviews consult (it must be able to list rules for SelfSubjectRulesReview). */
export type ReviewAuthorizer = Authorizer & {
  rulesFor(user: UserInfo, namespace: string): RulesResult;
};

type Obj = Record<string, unknown>;

function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

function strList(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

function extraOf(v: unknown): Record<string, string[]> | undefined {
  if (!isObject(v)) return undefined;
  const out: Record<string, string[]> = {};
  for (const [k, vals] of Object.entries(v)) out[k] = strList(vals);
  return out;
}

function fail(kind: string, errs: FieldError[]): never {
  throw StatusError.invalid({ group: AUTHORIZATION_GROUP, kind }, "", errs);
}

/** Checks the spec's attribute choice; returns the field errors. */
function validateAttributes(spec: Obj, local: boolean): FieldError[] {
  const ra = spec.resourceAttributes, nra = spec.nonResourceAttributes;
  const hasRa = isObject(ra), hasNra = isObject(nra);
  if (local) {
    const errs: FieldError[] = [];
    if (hasNra) {
      errs.push(invalid("spec.nonResourceAttributes", nra, "disallowed on this kind of request"));
    }
    if (!hasRa) errs.push(required("spec.resourceAttributes"));
    return errs;
  }
  if (hasRa === hasNra) {
    return [
      invalid(
        "spec.resourceAttributes",
        ra ?? null,
        "exactly one of nonResourceAttributes or resourceAttributes must be specified",
      ),
    ];
  }
  return [];
}

function attributesOf(spec: Obj, user: UserInfo): AuthzAttributes {
  if (isObject(spec.resourceAttributes)) {
    const ra = spec.resourceAttributes;
    return {
      user,
      verb: str(ra.verb),
      isResourceRequest: true,
      path: "",
      apiGroup: str(ra.group),
      apiVersion: str(ra.version),
      resource: str(ra.resource),
      subresource: str(ra.subresource),
      namespace: str(ra.namespace),
      name: str(ra.name),
    };
  }
  const nra = spec.nonResourceAttributes as Obj;
  return {
    user,
    verb: str(nra.verb),
    isResourceRequest: false,
    path: str(nra.path),
    apiGroup: "",
    apiVersion: "",
    resource: "",
    subresource: "",
    namespace: "",
    name: "",
  };
}

async function answer(
  authz: ReviewAuthorizer,
  kind: string,
  body: KubeObject,
  spec: Obj,
  user: UserInfo,
): Promise<KubeObject> {
  let decision;
  let evaluationError = "";
  try {
    decision = await authz.authorize(attributesOf(spec, user));
  } catch (err) {
    decision = { decision: "noOpinion" as const, reason: "" };
    evaluationError = (err as Error).message;
  }
  const status: Obj = { allowed: decision.decision === "allow" };
  if (decision.decision === "deny") status.denied = true;
  if (decision.reason) status.reason = decision.reason;
  if (evaluationError) status.evaluationError = evaluationError;
  return {
    kind,
    apiVersion: `${AUTHORIZATION_GROUP}/v1`,
    metadata: { ...body.metadata },
    spec,
    status,
  };
}

function specOf(kind: string, body: KubeObject): Obj {
  if (!isObject(body.spec)) fail(kind, [required("spec")]);
  return body.spec as Obj;
}

function virtualKind(
  kind: string,
  plural: string,
  namespaced: boolean,
  create: (args: CustomCreateArgs) => Promise<KubeObject>,
): KindDef {
  return {
    group: AUTHORIZATION_GROUP,
    version: "v1",
    kind,
    plural,
    singular: kind.toLowerCase(),
    namespaced,
    verbs: ["create"],
    virtual: { create },
    strategy: { validate: () => [] },
  };
}

function requestUser(args: CustomCreateArgs): UserInfo {
  if (!args.user) throw StatusError.internal("no user on the request");
  return args.user;
}

/** The four review kinds, answered by `authz`. */
export function accessReviewKinds(authz: () => ReviewAuthorizer): KindDef[] {
  const ssar = virtualKind("SelfSubjectAccessReview", "selfsubjectaccessreviews", false, (a) => {
    const spec = specOf("SelfSubjectAccessReview", a.body);
    const errs = validateAttributes(spec, false);
    if (errs.length) fail("SelfSubjectAccessReview", errs);
    return answer(authz(), "SelfSubjectAccessReview", a.body, spec, requestUser(a));
  });
  const sar = virtualKind("SubjectAccessReview", "subjectaccessreviews", false, (a) => {
    const spec = specOf("SubjectAccessReview", a.body);
    const errs = validateAttributes(spec, false);
    const user: UserInfo = {
      username: str(spec.user),
      groups: strList(spec.groups),
      ...(spec.uid ? { uid: str(spec.uid) } : {}),
      ...(extraOf(spec.extra) ? { extra: extraOf(spec.extra) } : {}),
    };
    if (!user.username && user.groups.length === 0) {
      errs.push(invalid("spec.user", "", "at least one of user or group must be specified"));
    }
    if (errs.length) fail("SubjectAccessReview", errs);
    return answer(authz(), "SubjectAccessReview", a.body, spec, user);
  });
  const lsar = virtualKind("LocalSubjectAccessReview", "localsubjectaccessreviews", true, (a) => {
    const spec = specOf("LocalSubjectAccessReview", a.body);
    const errs = validateAttributes(spec, true);
    const user: UserInfo = {
      username: str(spec.user),
      groups: strList(spec.groups),
      ...(spec.uid ? { uid: str(spec.uid) } : {}),
      ...(extraOf(spec.extra) ? { extra: extraOf(spec.extra) } : {}),
    };
    if (!user.username && user.groups.length === 0) {
      errs.push(invalid("spec.user", "", "at least one of user or group must be specified"));
    }
    if (errs.length) fail("LocalSubjectAccessReview", errs);
    const ns = str((spec.resourceAttributes as Obj).namespace);
    if (ns !== a.namespace) {
      throw StatusError.badRequest(
        `spec.resourceAttributes.namespace must match namespace: ${a.namespace}`,
      );
    }
    return answer(authz(), "LocalSubjectAccessReview", a.body, spec, user);
  });
  const ssrr = virtualKind("SelfSubjectRulesReview", "selfsubjectrulesreviews", false, (a) => {
    const spec = isObject(a.body.spec) ? a.body.spec : {};
    const namespace = str(spec.namespace);
    if (!namespace) throw StatusError.badRequest("no namespace on request");
    const r = authz().rulesFor(requestUser(a), namespace);
    const status: Obj = {
      resourceRules: r.resourceRules,
      nonResourceRules: r.nonResourceRules,
      incomplete: r.incomplete,
    };
    if (r.errors.length === 1) status.evaluationError = r.errors[0];
    else if (r.errors.length > 1) status.evaluationError = `[${r.errors.join(", ")}]`;
    return Promise.resolve({
      kind: "SelfSubjectRulesReview",
      apiVersion: `${AUTHORIZATION_GROUP}/v1`,
      metadata: { ...a.body.metadata },
      spec: { ...spec },
      status,
    });
  });
  return [lsar, ssar, ssrr, sar];
}
