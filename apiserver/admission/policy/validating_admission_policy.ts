/**
 * The ValidatingAdmissionPolicy admission plugin (validating phase), as Kubernetes' dispatcher
 * runs it: for each policy whose match constraints match the request, each of its bindings
 * whose match resources match, each param object the binding selects, the policy is evaluated
 * (see policy_evaluator.ts) and every failed validation is enforced by the binding's
 * validation actions: Deny rejects the request (the first denial's message, with the
 * validation's reason as status reason and code), Warn adds a `Warning` header, Audit records
 * the `validation.policy.admission.k8s.io/validation_failure` audit annotation. Configuration
 * problems (unknown param kind, missing params, bad selectors) and errors follow the policy's
 * failure policy. Writes of policies and bindings themselves are never checked.
 *
 * @module
 */
import { StatusError } from "../../../shared/errors/status_error.ts";
import type { Authorizer } from "../../auth/authz/authorizer.ts";
import { admissionPolicyEnvironment, type CelEnvironment } from "../../cel/mod.ts";
import type { AdmissionAttributes, AdmissionPlugin } from "../../registry/generic/admission.ts";
import { apiVersionOf } from "../../registry/generic/kind.ts";
import type { ResourceRegistry } from "../../registry/resource_registry.ts";
import type { ChangeFeed } from "../../watch/change_feed.ts";
import {
  EquivalentResources,
  type MatchRequest,
  matchRequestOf,
} from "../matching/match_request.ts";
import type { MatchDeps } from "../matching/resource_matcher.ts";
import type { GroupVersionResource } from "../matching/rules.ts";
import {
  collectParams,
  ParamError,
  type ParamStoreLookup,
  unknownParamKind,
} from "./collect_params.ts";
import type { CompiledPolicy } from "./compiled_policy.ts";
import { type Denial, evaluateBinding, RequestContext } from "./request_context.ts";
import { type CompiledBinding, PolicySource } from "./policy_source.ts";

/** What the plugin reads. */
export interface ValidatingAdmissionPolicyOptions {
  /** The served kinds (policies, bindings, params, namespaces). */
  registry: ResourceRegistry;
  /** The change feed policies and bindings are followed through. */
  feed: ChangeFeed;
  /** The server's authorizer chain (the `authorizer` variable asks it). */
  authorizer: () => Authorizer;
}

const GROUP = "admissionregistration.k8s.io";

const REASON_CODES: Record<string, number> = {
  Forbidden: 403,
  Unauthorized: 401,
  RequestEntityTooLarge: 413,
  Invalid: 422,
};

/** Builds the `ValidatingAdmissionPolicy` plugin. */
export function validatingAdmissionPolicy(
  opts: ValidatingAdmissionPolicyOptions,
): AdmissionPlugin {
  const env = admissionPolicyEnvironment();
  const { registry } = opts;
  const source = new PolicySource({
    feed: opts.feed,
    policies: () => registry.lookup(GROUP, "v1", "validatingadmissionpolicies"),
    bindings: () => registry.lookup(GROUP, "v1", "validatingadmissionpolicybindings"),
    env,
  });
  const equivalents = new EquivalentResources(() => registry.all().map((s) => s.def));
  registry.onChange(() => equivalents.invalidate());
  const paramStore: ParamStoreLookup = (apiVersion, kind) =>
    registry.all().find((s) => apiVersionOf(s.def) === apiVersion && s.def.kind === kind);
  return {
    name: "ValidatingAdmissionPolicy",
    async validate(attrs: AdmissionAttributes): Promise<void> {
      const req = matchRequestOf(attrs);
      if (isPolicyResource(req.resource)) return;
      let hooks;
      try {
        hooks = await source.hooks();
      } catch {
        // Kubernetes' answer before its informers have synced.
        throw StatusError.forbidden(
          { group: attrs.kind.group, resource: attrs.kind.plural },
          attrs.name,
          "not yet ready to handle request",
        );
      }
      if (hooks.length === 0) return;
      const ctx = new RequestContext(attrs, registry, opts.authorizer());
      const deps: MatchDeps = { namespaceLabels: (n) => ctx.namespaceLabels(n), equivalents };
      const denials: Denial[] = [];
      for (const { policy, bindings } of hooks) {
        await dispatchPolicy(
          { policy, bindings, req, deps, ctx, env, paramStore },
          denials,
        );
      }
      if (denials.length > 0) throw denialError(attrs, denials[0]);
    },
  };
}

const POLICY_RESOURCES = new Set([
  "validatingadmissionpolicies",
  "validatingadmissionpolicybindings",
  "mutatingadmissionpolicies",
  "mutatingadmissionpolicybindings",
]);

/** Kubernetes' isPolicyResource: policies never check writes of policies and bindings. */
function isPolicyResource(r: GroupVersionResource): boolean {
  return r.group === GROUP && POLICY_RESOURCES.has(r.resource);
}

interface DispatchArgs {
  policy: CompiledPolicy;
  bindings: CompiledBinding[];
  req: MatchRequest;
  deps: MatchDeps;
  ctx: RequestContext;
  env: CelEnvironment;
  paramStore: ParamStoreLookup;
}

/** One policy: its match, its bindings, their params; denials are appended to `denials`. */
async function dispatchPolicy(a: DispatchArgs, denials: Denial[]): Promise<void> {
  const { policy, req, ctx } = a;
  const configError = (message: string, binding?: CompiledBinding) => {
    if (policy.failurePolicy === "Ignore") return;
    const what = binding ? "binding" : "policy";
    denials.push({
      policy: policy.name,
      binding: binding?.name,
      message: `failed to configure ${what}: ${message}`,
    });
  };
  const m = await policy.matcher.matches(req, a.deps);
  if (m.error !== undefined) return configError(m.error);
  if (!m.matches) return;
  if (policy.paramKind && !a.paramStore(policy.paramKind.apiVersion, policy.paramKind.kind)) {
    return configError(unknownParamKind(policy.paramKind));
  }
  let base: Record<string, unknown> | undefined;
  for (const binding of a.bindings) {
    const bm = await binding.matcher.matches(req, a.deps);
    if (bm.error !== undefined) {
      configError(bm.error, binding);
      continue;
    }
    if (!bm.matches) continue;
    let params;
    try {
      const spec = binding.object.spec as Record<string, unknown> | undefined;
      params = await collectParams(
        policy.paramKind,
        spec?.paramRef,
        ctx.attrs.namespace,
        a.paramStore,
      );
    } catch (e) {
      if (!(e instanceof ParamError || e instanceof StatusError)) throw e;
      configError(e.message, binding);
      continue;
    }
    base ??= await ctx.variables(a.env, m.def, policy.readsNamespace);
    for (const p of params) {
      const vars = p ? { ...base, params: a.env.activation({ params: p }).params } : base;
      await evaluateBinding({ policy, binding, ctx, vars }, denials);
    }
  }
  ctx.flushPolicyAnnotations(policy.name);
}

/** Kubernetes' denial: Forbidden's message shape with the decision's reason and code. */
function denialError(attrs: AdmissionAttributes, d: Denial): StatusError {
  const message = d.binding !== undefined
    ? `ValidatingAdmissionPolicy '${d.policy}' with binding '${d.binding}' denied request: ${d.message}`
    : `ValidatingAdmissionPolicy '${d.policy}' denied request: ${d.message}`;
  const err = StatusError.forbidden(
    { group: attrs.kind.group, resource: attrs.kind.plural },
    attrs.name,
    message,
  );
  const reason = d.reason || "Invalid";
  err.status.reason = reason;
  err.status.code = REASON_CODES[reason] ?? 422;
  err.status.details = { ...err.status.details, causes: [{ message }] };
  return err;
}
