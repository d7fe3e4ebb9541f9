/**
 * What the ValidatingAdmissionPolicy plugin keeps for one request: the namespace (read at most
 * once), the `authorizer` variable (decisions fetched and kept for the request), the audit
 * annotations collected per policy, and the enforcement of one binding's evaluation results
 * by its validation actions.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import type { Authorizer } from "../../auth/authz/authorizer.ts";
import { AuthorizerValue, type CelEnvironment } from "../../cel/mod.ts";
import { ResourceCheck } from "../../cel/library/authorizer.ts";
import type { AdmissionAttributes } from "../../registry/generic/admission.ts";
import type { KindDef } from "../../registry/generic/kind.ts";
import type { ResourceRegistry } from "../../registry/resource_registry.ts";
import { admissionRequestOf } from "../admission_request.ts";
import { convertObject } from "../matching/match_request.ts";
import type { CompiledPolicy } from "./compiled_policy.ts";
import { celVariables, evaluatePolicy, type ValidateResult } from "./policy_evaluator.ts";
import type { CompiledBinding } from "./policy_source.ts";
import { PrefetchingAuthorizer } from "./prefetching_authorizer.ts";

/** A denial to report (the first one rejects the request). */
export interface Denial {
  policy: string;
  binding?: string;
  message: string;
  reason?: string;
}

/** The audit annotation key of validation failures under the Audit action. */
export const VALIDATION_FAILURE_ANNOTATION =
  "validation.policy.admission.k8s.io/validation_failure";
/** Kubernetes' `maxAuditAnnotationValueLength`. */
const MAX_AUDIT_VALUE = 10 * 1024;
/** Evaluations re-run to fetch authorizer decisions, at most. */
const MAX_AUTHZ_ROUNDS = 8;

/** Kubernetes' CreateNamespaceObject: the namespace without managed fields and owners. */
function namespaceView(ns: KubeObject): KubeObject {
  const m = ns.metadata;
  const keep = [
    "name",
    "generateName",
    "namespace",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "finalizers",
  ] as const;
  const metadata: Record<string, unknown> = {};
  for (const k of keep) if (m[k] !== undefined) metadata[k] = m[k];
  return { ...ns, metadata: metadata as KubeObject["metadata"] };
}

/** Per-request state of the plugin. */
export class RequestContext {
  readonly #namespaces = new Map<string, Promise<KubeObject | undefined>>();
  readonly #annotations = new Map<string, string[]>();
  readonly #variables = new Map<string, Promise<Record<string, unknown>>>();
  readonly prefetcher: PrefetchingAuthorizer;
  #authz?: AuthorizerValue;

  constructor(
    readonly attrs: AdmissionAttributes,
    readonly registry: ResourceRegistry,
    authorizer: Authorizer,
  ) {
    this.prefetcher = new PrefetchingAuthorizer(authorizer);
  }

  #namespace(name: string): Promise<KubeObject | undefined> {
    let p = this.#namespaces.get(name);
    if (!p) {
      const store = this.registry.lookup("", "v1", "namespaces");
      p = !store ? Promise.resolve(undefined) : store.get("", name).catch((e) => {
        if (e instanceof StatusError && e.code === 404) return undefined;
        throw e;
      });
      this.#namespaces.set(name, p);
    }
    return p;
  }

  /** The labels of namespace `name` (undefined when missing). */
  async namespaceLabels(name: string): Promise<Record<string, string> | undefined> {
    const ns = await this.#namespace(name);
    return ns ? ns.metadata.labels ?? {} : undefined;
  }

  /** `namespaceObject`: the request's namespace (null for cluster-scoped and Namespaces). */
  async namespaceObject(): Promise<KubeObject | null> {
    const a = this.attrs;
    if (!a.namespace || (a.kind.group === "" && a.kind.kind === "Namespace")) return null;
    const ns = await this.#namespace(a.namespace);
    return ns ? namespaceView(ns) : null;
  }

  /**
   * `request`, `object`, `oldObject` and (when `withNamespace`) `namespaceObject` as CEL
   * values, with the objects in the form of `def` (the version matched); converted once.
   */
  variables(
    env: CelEnvironment,
    def: KindDef,
    withNamespace: boolean,
  ): Promise<Record<string, unknown>> {
    const key = `${def.group}/${def.version}/${def.plural}/${withNamespace}`;
    let p = this.#variables.get(key);
    if (!p) {
      const a = this.attrs;
      const convert = (o: KubeObject | undefined) => (o ? convertObject(o, a.kind, def) : null);
      p = Promise.all([
        withNamespace ? this.namespaceObject() : null,
        admissionRequestOf(a, { matched: def }),
        convert(a.object),
        convert(a.oldObject),
      ]).then(([namespaceObject, request, object, oldObject]) =>
        celVariables(env, { request, object, oldObject, namespaceObject })
      );
      this.#variables.set(key, p);
    }
    return p;
  }

  /** The `authorizer` variable for the request's user, with `requestResource`. */
  authorizerValue(): AuthorizerValue {
    if (this.#authz) return this.#authz;
    const u = this.attrs.user;
    const v = new AuthorizerValue(this.prefetcher, {
      name: u?.username ?? "",
      uid: u?.uid,
      groups: u?.groups ?? [],
      extra: u?.extra,
    });
    const sent = this.attrs.requestKind ?? this.attrs.kind;
    const requestResource = new ResourceCheck(v, {
      apiGroup: sent.group,
      resource: sent.plural,
      subresource: this.attrs.subresource,
      namespace: this.attrs.namespace,
      name: this.attrs.name,
      fieldSelector: "",
      labelSelector: "",
    });
    Object.assign(v, { requestResource });
    return this.#authz = v;
  }

  /** Records an audit annotation once per key (the first value wins, as Kubernetes keeps). */
  addAuditAnnotation(key: string, value: string): void {
    this.attrs.auditAnnotations ??= {};
    if (!(key in this.attrs.auditAnnotations)) this.attrs.auditAnnotations[key] = value;
  }

  /** Collects a policy's audit annotation value (distinct values are joined). */
  collect(key: string, value: string): void {
    const list = this.#annotations.get(key) ?? [];
    if (!list.includes(value)) list.push(value);
    this.#annotations.set(key, list);
  }

  /** Publishes the collected annotations of `policy` as `<policy>/<key>`. */
  flushPolicyAnnotations(policy: string): void {
    for (const [key, values] of this.#annotations) {
      this.addAuditAnnotation(`${policy}/${key}`, values.join(", "));
    }
    this.#annotations.clear();
  }
}

/** Evaluates a policy for a binding and one param, fetching authorizer decisions as needed. */
async function evaluate(
  policy: CompiledPolicy,
  ctx: RequestContext,
  vars: Record<string, unknown>,
): Promise<ValidateResult> {
  const full = { vars, authorizer: ctx.authorizerValue() };
  for (let round = 0;; round++) {
    const result = evaluatePolicy(policy, full);
    if (!ctx.prefetcher.hasPending || round >= MAX_AUTHZ_ROUNDS) return result;
    await ctx.prefetcher.fetchPending();
  }
}

/** Evaluates and enforces one binding's result for one param object. */
export async function evaluateBinding(
  a: {
    policy: CompiledPolicy;
    binding: CompiledBinding;
    ctx: RequestContext;
    /** The variables as CEL values (see `celVariables`). */
    vars: Record<string, unknown>;
  },
  denials: Denial[],
): Promise<void> {
  const { policy, binding, ctx } = a;
  const result = await evaluate(policy, ctx, a.vars);
  for (const [i, d] of result.decisions.entries()) {
    if (d.action !== "deny") continue;
    for (const action of binding.actions) {
      if (action === "Deny") {
        denials.push({
          policy: policy.name,
          binding: binding.name,
          message: d.message,
          reason: d.reason,
        });
      } else if (action === "Warn") {
        ctx.attrs.warn?.(
          `Validation failed for ValidatingAdmissionPolicy '${policy.name}' with binding '${binding.name}': ${d.message}`,
        );
      } else if (action === "Audit") {
        ctx.addAuditAnnotation(
          VALIDATION_FAILURE_ANNOTATION,
          JSON.stringify([{
            message: d.message,
            policy: policy.name,
            binding: binding.name,
            expressionIndex: i,
            validationActions: binding.actions,
          }]),
        );
      }
    }
  }
  for (const an of result.auditAnnotations) {
    if (an.error !== undefined) {
      denials.push({ policy: policy.name, binding: binding.name, message: an.error });
    } else if (an.value !== undefined) ctx.collect(an.key, an.value.slice(0, MAX_AUDIT_VALUE));
  }
}
