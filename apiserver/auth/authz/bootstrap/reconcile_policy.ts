/**
 * Reconciliation of the default RBAC policy at every start, as Kubernetes' bootstrap does it:
 * missing default ClusterRoles and ClusterRoleBindings are created; existing ones get missing
 * rules (or aggregation selectors), subjects, labels and annotations added back, and a binding
 * whose roleRef differs is recreated. Extra permissions and subjects are kept. An object
 * annotated `rbac.authorization.kubernetes.io/autoupdate: "false"` is left alone.
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../../../shared/errors/status_error.ts";
import type { BindingObject, RoleObject } from "../rbac_types.ts";
import { uncoveredRules } from "../rule_covers.ts";
import {
  AUTOUPDATE_ANNOTATION,
  defaultClusterRoleBindings,
  defaultClusterRoles,
} from "./default_policy.ts";

/**
 * The reads and writes reconciliation makes on one cluster-scoped kind (the wiring passes the
 * registry's store of ClusterRoles or ClusterRoleBindings). `get` throws a 404 StatusError for a
 * missing object; a write throws 409 on a conflict.
 */
export interface PolicyObjectStore {
  get(namespace: string, name: string): Promise<KubeObject>;
  create(namespace: string, body: KubeObject): Promise<KubeObject>;
  update(namespace: string, name: string, body: KubeObject): Promise<unknown>;
  delete(
    namespace: string,
    name: string,
    options: { preconditions?: { uid?: string } },
  ): Promise<unknown>;
}

/** What reconciliation did, by object name. */
export interface ReconcileReport {
  created: string[];
  updated: string[];
  skipped: string[];
}

function mergeMaps(
  existing: Record<string, string> | undefined,
  expected: Record<string, string> | undefined,
): Record<string, string> {
  return { ...(expected ?? {}), ...(existing ?? {}) };
}

function autoupdateOff(obj: KubeObject): boolean {
  return obj.metadata.annotations?.[AUTOUPDATE_ANNOTATION] === "false";
}

async function getOrUndefined(
  store: PolicyObjectStore,
  name: string,
): Promise<KubeObject | undefined> {
  try {
    return await store.get("", name);
  } catch (err) {
    if (err instanceof StatusError && err.code === 404) return undefined;
    throw err;
  }
}

function reconcileRole(existing: RoleObject, expected: RoleObject): RoleObject | undefined {
  const next = structuredClone(existing);
  next.metadata.labels = mergeMaps(existing.metadata.labels, expected.metadata.labels);
  next.metadata.annotations = mergeMaps(
    existing.metadata.annotations,
    expected.metadata.annotations,
  );
  if (expected.aggregationRule) {
    const have = existing.aggregationRule?.clusterRoleSelectors ?? [];
    const want = expected.aggregationRule.clusterRoleSelectors ?? [];
    const missing = want.filter((w) => !have.some((h) => JSON.stringify(h) === JSON.stringify(w)));
    if (missing.length > 0 || !existing.aggregationRule) {
      next.aggregationRule = { clusterRoleSelectors: [...have, ...missing] };
    }
  } else {
    const missing = uncoveredRules(existing.rules ?? [], expected.rules ?? []);
    if (missing.length > 0) next.rules = [...(existing.rules ?? []), ...missing];
  }
  return JSON.stringify(next) === JSON.stringify(existing) ? undefined : next;
}

function reconcileBinding(
  existing: BindingObject,
  expected: BindingObject,
): BindingObject | undefined {
  const next = structuredClone(existing);
  next.metadata.labels = mergeMaps(existing.metadata.labels, expected.metadata.labels);
  next.metadata.annotations = mergeMaps(
    existing.metadata.annotations,
    expected.metadata.annotations,
  );
  const have = existing.subjects ?? [];
  const missing = (expected.subjects ?? []).filter((w) =>
    !have.some((h) =>
      h.kind === w.kind && h.name === w.name && (h.namespace ?? "") === (w.namespace ?? "")
    )
  );
  if (missing.length > 0) next.subjects = [...have, ...missing];
  return JSON.stringify(next) === JSON.stringify(existing) ? undefined : next;
}

/** Reconciles the default cluster roles and bindings through their stores. */
export async function reconcileDefaultPolicy(
  clusterRoles: PolicyObjectStore,
  clusterRoleBindings: PolicyObjectStore,
): Promise<ReconcileReport> {
  const report: ReconcileReport = { created: [], updated: [], skipped: [] };
  for (const expected of defaultClusterRoles()) {
    const name = expected.metadata.name!;
    for (let attempt = 0; attempt < 5; attempt++) {
      const existing = await getOrUndefined(clusterRoles, name) as RoleObject | undefined;
      try {
        if (!existing) {
          await clusterRoles.create("", expected);
          report.created.push(`clusterrole/${name}`);
        } else if (autoupdateOff(existing)) {
          report.skipped.push(`clusterrole/${name}`);
        } else {
          const next = reconcileRole(existing, expected);
          if (next) {
            await clusterRoles.update("", name, next);
            report.updated.push(`clusterrole/${name}`);
          }
        }
        break;
      } catch (err) {
        if (err instanceof StatusError && (err.code === 409 || err.code === 404)) continue;
        throw err;
      }
    }
  }
  for (const expected of defaultClusterRoleBindings()) {
    const name = expected.metadata.name!;
    for (let attempt = 0; attempt < 5; attempt++) {
      const existing = await getOrUndefined(clusterRoleBindings, name) as
        | BindingObject
        | undefined;
      try {
        if (!existing) {
          await clusterRoleBindings.create("", expected);
          report.created.push(`clusterrolebinding/${name}`);
        } else if (autoupdateOff(existing)) {
          report.skipped.push(`clusterrolebinding/${name}`);
        } else if (JSON.stringify(existing.roleRef) !== JSON.stringify(expected.roleRef)) {
          await clusterRoleBindings.delete("", name, {
            preconditions: { uid: existing.metadata.uid },
          });
          const recreated = structuredClone(existing);
          recreated.roleRef = expected.roleRef;
          delete recreated.metadata.uid;
          delete recreated.metadata.resourceVersion;
          await clusterRoleBindings.create("", reconcileBinding(recreated, expected) ?? recreated);
          report.updated.push(`clusterrolebinding/${name}`);
        } else {
          const next = reconcileBinding(existing, expected);
          if (next) {
            await clusterRoleBindings.update("", name, next);
            report.updated.push(`clusterrolebinding/${name}`);
          }
        }
        break;
      } catch (err) {
        if (err instanceof StatusError && (err.code === 409 || err.code === 404)) continue;
        throw err;
      }
    }
  }
  return report;
}
