/**
 * TokenReview (`authentication.k8s.io/v1`): a virtual, create-only kind. The server runs the
 * token in `spec.token` through its own authenticators (with `spec.audiences`, when given, as
 * the audiences the token must be meant for) and answers in `status`.
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../../../shared/errors/status_error.ts";
import type { Authenticator } from "../../../auth/authn/authenticator.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import type { KindDef } from "../../generic/kind.ts";
import { userInfoObject } from "../selfsubjectreviews/strategy.ts";

/** Runs a TokenReview against `authenticator` (a chain of the server's authenticators). */
export async function reviewToken(
  authenticator: Authenticator,
  body: KubeObject,
): Promise<KubeObject> {
  // The schema makes spec an object, token a string and audiences a list of strings.
  const spec = isObject(body.spec) ? body.spec : {};
  if (typeof spec.token !== "string" || spec.token === "") {
    throw StatusError.badRequest("token is required for TokenReview in authentication");
  }
  const audiences = Array.isArray(spec.audiences) ? spec.audiences as string[] : [];
  const req = new Request("https://tokenreview.invalid/", {
    headers: { authorization: `Bearer ${spec.token}` },
  });
  const r = await authenticator.authenticate(req, { peerCertificates: [] }, {
    audiences: audiences.length ? audiences : undefined,
  });
  const status: Record<string, unknown> = { user: {} };
  if (r.kind === "user" && r.method !== "anonymous") {
    status.authenticated = true;
    status.user = userInfoObject(r.user);
    if (r.audiences?.length) status.audiences = r.audiences;
  } else if (r.kind === "invalid") {
    status.error = r.reason;
  } else {
    status.error = "invalid bearer token";
  }
  return {
    apiVersion: "authentication.k8s.io/v1",
    kind: "TokenReview",
    metadata: { ...(body.metadata ?? {}) },
    spec: { ...spec },
    status,
  };
}

/** The TokenReview kind, answering with `authenticator`. */
export function tokenReviewKind(authenticator: Authenticator): KindDef {
  return {
    group: "authentication.k8s.io",
    version: "v1",
    kind: "TokenReview",
    plural: "tokenreviews",
    singular: "tokenreview",
    namespaced: false,
    verbs: ["create"],
    virtual: { create: (args) => reviewToken(authenticator, args.body) },
    strategy: { validate: () => [] },
  };
}
