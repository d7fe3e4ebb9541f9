/**
 * RBAC escalation prevention, run as a validating admission step of the four RBAC kinds.
 * Creating or updating a Role or ClusterRole needs every permission in it at that scope, or
 * the `escalate` verb on roles/clusterroles; a ClusterRole with an aggregationRule needs
 * cluster-admin power (or `escalate`). Creating or updating a binding needs the permissions of
 * the referenced role, or the `bind` verb on it. Members of `system:masters` and internal
 * writes (no user) are not checked. Rejections are 403 with Kubernetes' messages.
 *
 * @module
 */
import {
  SYSTEM_PRIVILEGED_GROUP,
  type UserInfo,
} from "../../../shared/api/authentication/v1/user_info.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import type { Authorizer, RuleResolver } from "../../auth/authz/authorizer.ts";
import {
  type BindingObject,
  type PolicyRule,
  RBAC_GROUP,
  type RoleObject,
} from "../../auth/authz/rbac_types.ts";
import { compactRuleString, goQuoteList, uncoveredRules } from "../../auth/authz/rule_covers.ts";
import type { AdmissionAttributes, AdmissionPlugin } from "../generic/admission.ts";

/** What the check needs: the full authorizer chain and the RBAC rule resolver. */
export interface EscalationCheckDeps {
  authorizer: () => Authorizer | undefined;
  rbac: () => RuleResolver | undefined;
}

const FULL_AUTHORITY: PolicyRule[] = [
  { verbs: ["*"], apiGroups: ["*"], resources: ["*"] },
  { verbs: ["*"], nonResourceURLs: ["*"] },
];

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/** Builds the admission plugin. */
export function rbacEscalationCheck(deps: EscalationCheckDeps): AdmissionPlugin {
  return {
    name: "RBACEscalation",
    async validate(a: AdmissionAttributes): Promise<void> {
      if (a.kind.group !== RBAC_GROUP) return;
      if (a.operation !== "CREATE" && a.operation !== "UPDATE") return;
      const user = a.user;
      if (!user || (user.groups ?? []).includes(SYSTEM_PRIVILEGED_GROUP)) return;
      if (a.kind.kind === "Role" || a.kind.kind === "ClusterRole") {
        await checkRoleWrite(deps, a, user);
      } else if (a.kind.kind === "RoleBinding" || a.kind.kind === "ClusterRoleBinding") {
        await checkBindingWrite(deps, a, user);
      }
    },
  };
}

/** A Role or ClusterRole write: its rules must be held, or `escalate` granted. */
async function checkRoleWrite(
  deps: EscalationCheckDeps,
  a: AdmissionAttributes,
  user: UserInfo,
): Promise<void> {
  const role = a.object as RoleObject;
  const old = a.oldObject as RoleObject | undefined;
  if (
    old && same(role.rules, old.rules) && same(role.aggregationRule, old.aggregationRule)
  ) return;
  if (await allowedVerb(deps, user, "escalate", a.kind.plural, a.namespace, a.name)) return;
  if (a.kind.kind === "ClusterRole" && role.aggregationRule) {
    const rbac = deps.rbac();
    const owned = rbac ? rbac.policyRulesFor(user, "").rules : [];
    if (uncoveredRules(owned, FULL_AUTHORITY).length > 0) {
      throw StatusError.forbidden(
        { group: RBAC_GROUP, resource: a.kind.plural },
        "",
        "must have cluster-admin privileges to use the aggregationRule",
      );
    }
    return;
  }
  confirmNoEscalation(deps, a, user, role.rules ?? []);
}

/** A binding write: the role's rules must be held, or `bind` granted on the role. */
async function checkBindingWrite(
  deps: EscalationCheckDeps,
  a: AdmissionAttributes,
  user: UserInfo,
): Promise<void> {
  const b = a.object as BindingObject;
  const old = a.oldObject as BindingObject | undefined;
  if (old && same(b.roleRef, old.roleRef) && same(b.subjects, old.subjects)) return;
  const ref = b.roleRef;
  const refResource = ref.kind === "Role" ? "roles" : "clusterroles";
  if (await allowedVerb(deps, user, "bind", refResource, a.namespace, ref.name)) return;
  const rbac = deps.rbac();
  const rules = rbac ? rbac.roleRefRules(ref, a.namespace) : { error: "no RBAC" };
  if ("error" in rules) {
    throw StatusError.notFound({ group: RBAC_GROUP, resource: refResource }, ref.name);
  }
  confirmNoEscalation(deps, a, user, rules);
}

/** Whether the authorizer grants `verb` on an RBAC resource. */
async function allowedVerb(
  deps: EscalationCheckDeps,
  user: UserInfo,
  verb: string,
  resource: string,
  namespace: string,
  name: string,
): Promise<boolean> {
  const authz = deps.authorizer();
  if (!authz) return false;
  const d = await authz.authorize({
    user,
    verb,
    isResourceRequest: true,
    path: "",
    apiGroup: RBAC_GROUP,
    apiVersion: "v1",
    resource,
    subresource: "",
    namespace,
    name,
  });
  return d.decision === "allow";
}

/** Throws a 403 listing the rules the user does not hold in the object's namespace. */
function confirmNoEscalation(
  deps: EscalationCheckDeps,
  a: AdmissionAttributes,
  user: UserInfo,
  rules: readonly PolicyRule[],
): void {
  const rbac = deps.rbac();
  const owned = rbac ? rbac.policyRulesFor(user, a.namespace) : { rules: [], errors: [] };
  const missing = uncoveredRules(owned.rules, rules);
  if (missing.length === 0) return;
  let msg = `user "${user.username}" (groups=${
    goQuoteList(user.groups ?? [])
  }) is attempting to grant RBAC permissions not currently held:\n${
    missing.map(compactRuleString).join("\n")
  }`;
  if (owned.errors.length > 0) msg += `; resolution errors: [${owned.errors.join(", ")}]`;
  throw StatusError.forbidden({ group: RBAC_GROUP, resource: a.kind.plural }, a.name, msg);
}
