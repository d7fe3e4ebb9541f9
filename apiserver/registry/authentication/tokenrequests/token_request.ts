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

/** A TokenRequest's validated spec. */
interface ValidSpec {
  expirationSeconds: number;
  audiences: string[];
  /** The (shape-checked) `boundObjectRef`, if any. */
  bound?: Record<string, unknown>;
}

/** Serves a TokenRequest for the service account `args.name` in `args.namespace`. */
export async function createTokenRequest(
  args: CustomCreateArgs,
  deps: TokenRequestDeps,
): Promise<KubeObject> {
  const { namespace, name, body } = args;
  const { expirationSeconds, audiences, bound } = validateSpec(body.spec, name, deps);
  const sa = await activeServiceAccount(deps, namespace, name);
  const tokenSpec: TokenSpec = {
    namespace,
    serviceAccount: ref(sa),
    audiences,
    expirationSeconds: deps.maxExpirationSeconds
      ? Math.min(expirationSeconds, deps.maxExpirationSeconds)
      : expirationSeconds,
  };
  const boundOut = bound ? await bindToken(deps, tokenSpec, bound, name) : undefined;

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

/**
 * Validates the spec's values, applying the defaults; throws a 422 listing every problem. The
 * schema makes spec an object, expirationSeconds an integer, audiences a list of strings and
 * boundObjectRef an object of strings: only values are checked here.
 */
function validateSpec(raw: unknown, name: string, deps: TokenRequestDeps): ValidSpec {
  const spec = isObject(raw) ? raw : {};
  const errs: FieldError[] = [];
  const expirationSeconds = expirationOf(spec.expirationSeconds, errs);
  let audiences = deps.issuer.apiAudiences;
  if (spec.audiences !== undefined && spec.audiences !== null) {
    const a = Array.isArray(spec.audiences) ? spec.audiences as string[] : [];
    if (a.some((x) => x === "")) {
      errs.push(invalid("spec.audiences", a, "must be a list of non-empty strings"));
    } else if (a.length) audiences = a;
  }
  const bound = isObject(spec.boundObjectRef) ? spec.boundObjectRef : undefined;
  if (bound) validateBoundRef(bound, errs);
  if (errs.length) throw StatusError.invalid(GK, name, errs);
  return { expirationSeconds, audiences, bound };
}

/** `spec.expirationSeconds`: default 3600, from 600 to 2^32. */
function expirationOf(given: unknown, errs: FieldError[]): number {
  if (given === undefined || given === null) return DEFAULT_EXPIRATION;
  const e = Number(given);
  if (e < MIN_EXPIRATION) {
    errs.push(
      invalid("spec.expirationSeconds", e, "may not specify a duration less than 10 minutes"),
    );
  } else if (e > MAX_EXPIRATION) {
    errs.push(
      invalid("spec.expirationSeconds", e, "may not specify a duration larger than 2^32 seconds"),
    );
  } else return e;
  return DEFAULT_EXPIRATION;
}

/** `spec.boundObjectRef`: a Pod, Secret or Node of `v1`, by name. */
function validateBoundRef(bound: Record<string, unknown>, errs: FieldError[]): void {
  if (!BINDABLE.includes(String(bound.kind))) {
    errs.push(notSupported("spec.boundObjectRef.kind", bound.kind, BINDABLE));
  }
  if (!bound.name) errs.push(required("spec.boundObjectRef.name", "name is required"));
  if (bound.apiVersion !== undefined && bound.apiVersion !== "v1") {
    errs.push(notSupported("spec.boundObjectRef.apiVersion", bound.apiVersion, ["v1"]));
  }
}

/** The service account; 404 when missing, 400 while it is being deleted. */
async function activeServiceAccount(
  deps: TokenRequestDeps,
  namespace: string,
  name: string,
): Promise<KubeObject> {
  const sa = await deps.get(CORE.serviceaccounts, namespace, name);
  if (!sa) throw StatusError.notFound({ group: "", resource: "serviceaccounts" }, name);
  if (sa.metadata.deletionTimestamp) {
    throw StatusError.badRequest(`serviceaccount ${namespace}/${name} is being deleted`);
  }
  return sa;
}

/**
 * Binds the token to the referenced object (which must exist, with the given uid if any);
 * returns the bound object reference of the answer.
 */
async function bindToken(
  deps: TokenRequestDeps,
  tokenSpec: TokenSpec,
  bound: Record<string, unknown>,
  name: string,
): Promise<Record<string, unknown>> {
  const kind = bound.kind as "Pod" | "Secret" | "Node";
  const objName = bound.name as string;
  const resource = kind === "Pod" ? CORE.pods : kind === "Secret" ? CORE.secrets : CORE.nodes;
  const obj = await deps.get(resource, kind === "Node" ? "" : tokenSpec.namespace, objName);
  if (!obj) throw StatusError.notFound({ group: "", resource: resource.resource }, objName);
  if (typeof bound.uid === "string" && bound.uid !== "" && bound.uid !== obj.metadata.uid) {
    throw StatusError.conflict(
      { group: "", resource: resource.resource },
      objName,
      `the UID in the bound object reference (${bound.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
    );
  }
  if (kind === "Pod") await bindPod(deps, tokenSpec, obj, name);
  else if (kind === "Secret") tokenSpec.secret = ref(obj);
  else tokenSpec.node = ref(obj);
  return { kind, apiVersion: "v1", name: objName, uid: obj.metadata.uid };
}

/** Binds to a Pod running as the service account, and to its Node when it has one. */
async function bindPod(
  deps: TokenRequestDeps,
  tokenSpec: TokenSpec,
  pod: KubeObject,
  name: string,
): Promise<void> {
  const podSpec = (pod.spec ?? {}) as Record<string, unknown>;
  const podSa = podSpec.serviceAccountName ?? "default";
  if (podSa !== name) {
    throw StatusError.badRequest(
      `cannot bind token for serviceaccount "${name}" to pod running with different serviceaccount name.`,
    );
  }
  tokenSpec.pod = ref(pod);
  const nodeName = podSpec.nodeName;
  if (typeof nodeName === "string" && nodeName) {
    const node = await deps.get(CORE.nodes, "", nodeName);
    if (node) tokenSpec.node = ref(node);
  }
}
