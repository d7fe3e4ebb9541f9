/**
 * TokenRequest (`authentication.k8s.io/v1`), served as the `token` subresource of service
 * accounts: `POST /api/v1/namespaces/<ns>/serviceaccounts/<name>/token` issues a bound,
 * expiring token with audiences (what `kubectl create token` calls). Defaults and limits as in
 * Kubernetes: `expirationSeconds` 3600, at least 600, at most 2^32 (and at most
 * `--service-account-max-token-expiration`), audiences default to the API audiences, and the
 * token may be bound to a Pod (running as this account), a Secret or a Node that exist.
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { type FieldError, StatusError } from "../../../../shared/errors/status_error.ts";
import { CORE, type ObjectGetter } from "../../../auth/authn/object_getter.ts";
import type {
  NameUid,
  ServiceAccountTokenIssuer,
  TokenSpec,
} from "../../../auth/authn/service_account_token.ts";
import { invalid, notSupported, required } from "../../../../shared/api/validation/field_errors.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import { rfc3339 } from "../../generic/clock.ts";
import type { CustomCreateArgs } from "../../generic/kind.ts";

/** What the TokenRequest handler needs. */
export interface TokenRequestDeps {
  issuer: ServiceAccountTokenIssuer;
  get: ObjectGetter;
  /** `--service-account-max-token-expiration`, seconds; longer requests are shortened. */
  maxExpirationSeconds?: number;
  now?: () => Date;
}

const GK = { group: "authentication.k8s.io", kind: "TokenRequest" };
const MIN_EXPIRATION = 600;
const MAX_EXPIRATION = 2 ** 32;
const DEFAULT_EXPIRATION = 3600;
const BINDABLE = ["Pod", "Secret", "Node"];

function ref(obj: KubeObject): NameUid {
  return { name: obj.metadata.name ?? "", uid: obj.metadata.uid ?? "" };
}

/** Serves a TokenRequest for the service account `args.name` in `args.namespace`. */
export async function createTokenRequest(
  args: CustomCreateArgs,
  deps: TokenRequestDeps,
): Promise<KubeObject> {
  const { namespace, name, body } = args;
  // The schema makes spec an object, expirationSeconds an integer, audiences a list of strings
  // and boundObjectRef an object of strings: only values are checked here.
  const spec = isObject(body.spec) ? body.spec : {};
  const errs: FieldError[] = [];
  let expirationSeconds = DEFAULT_EXPIRATION;
  if (spec.expirationSeconds !== undefined && spec.expirationSeconds !== null) {
    const e = Number(spec.expirationSeconds);
    if (e < MIN_EXPIRATION) {
      errs.push(
        invalid("spec.expirationSeconds", e, "may not specify a duration less than 10 minutes"),
      );
    } else if (e > MAX_EXPIRATION) {
      errs.push(
        invalid("spec.expirationSeconds", e, "may not specify a duration larger than 2^32 seconds"),
      );
    } else expirationSeconds = e;
  }
  let audiences = deps.issuer.apiAudiences;
  if (spec.audiences !== undefined && spec.audiences !== null) {
    const a = Array.isArray(spec.audiences) ? spec.audiences as string[] : [];
    if (a.some((x) => x === "")) {
      errs.push(invalid("spec.audiences", a, "must be a list of non-empty strings"));
    } else if (a.length) audiences = a;
  }
  const bound = spec.boundObjectRef;
  if (isObject(bound)) {
    if (!BINDABLE.includes(String(bound.kind))) {
      errs.push(notSupported("spec.boundObjectRef.kind", bound.kind, BINDABLE));
    }
    if (!bound.name) errs.push(required("spec.boundObjectRef.name", "name is required"));
    if (bound.apiVersion !== undefined && bound.apiVersion !== "v1") {
      errs.push(notSupported("spec.boundObjectRef.apiVersion", bound.apiVersion, ["v1"]));
    }
  }
  if (errs.length) throw StatusError.invalid(GK, name, errs);

  const sa = await deps.get(CORE.serviceaccounts, namespace, name);
  if (!sa) throw StatusError.notFound({ group: "", resource: "serviceaccounts" }, name);
  if (sa.metadata.deletionTimestamp) {
    throw StatusError.badRequest(`serviceaccount ${namespace}/${name} is being deleted`);
  }

  const tokenSpec: TokenSpec = {
    namespace,
    serviceAccount: ref(sa),
    audiences,
    expirationSeconds: deps.maxExpirationSeconds
      ? Math.min(expirationSeconds, deps.maxExpirationSeconds)
      : expirationSeconds,
  };
  let boundOut: Record<string, unknown> | undefined;
  if (isObject(bound)) {
    const kind = bound.kind as "Pod" | "Secret" | "Node";
    const objName = bound.name as string;
    const resource = kind === "Pod" ? CORE.pods : kind === "Secret" ? CORE.secrets : CORE.nodes;
    const obj = await deps.get(resource, kind === "Node" ? "" : namespace, objName);
    if (!obj) throw StatusError.notFound({ group: "", resource: resource.resource }, objName);
    if (typeof bound.uid === "string" && bound.uid !== "" && bound.uid !== obj.metadata.uid) {
      throw StatusError.conflict(
        { group: "", resource: resource.resource },
        objName,
        `the UID in the bound object reference (${bound.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
      );
    }
    if (kind === "Pod") {
      const podSa = ((obj.spec ?? {}) as Record<string, unknown>).serviceAccountName ?? "default";
      if (podSa !== name) {
        throw StatusError.badRequest(
          `cannot bind token for serviceaccount "${name}" to pod running with different serviceaccount name.`,
        );
      }
      tokenSpec.pod = ref(obj);
      const nodeName = ((obj.spec ?? {}) as Record<string, unknown>).nodeName;
      if (typeof nodeName === "string" && nodeName) {
        const node = await deps.get(CORE.nodes, "", nodeName);
        if (node) tokenSpec.node = ref(node);
      }
    } else if (kind === "Secret") {
      tokenSpec.secret = ref(obj);
    } else {
      tokenSpec.node = ref(obj);
    }
    boundOut = { kind, apiVersion: "v1", name: objName, uid: obj.metadata.uid };
  }

  const now = deps.now?.() ?? new Date();
  let token = "";
  let expiresAt = new Date(now.getTime() + tokenSpec.expirationSeconds * 1000);
  if (!args.dryRun) ({ token, expiresAt } = await deps.issuer.issue(tokenSpec));
  return {
    apiVersion: "authentication.k8s.io/v1",
    kind: "TokenRequest",
    metadata: { name, namespace, creationTimestamp: rfc3339(now.getTime()) },
    spec: {
      audiences,
      expirationSeconds: tokenSpec.expirationSeconds,
      boundObjectRef: boundOut ?? null,
    },
    status: { token, expirationTimestamp: rfc3339(expiresAt.getTime()) },
  };
}
