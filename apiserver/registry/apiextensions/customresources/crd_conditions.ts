/**
 * The conditions of a CustomResourceDefinition's status (NamesAccepted, Established,
 * Terminating) and the cleanup finalizer, with kube's reasons and messages.
 *
 * @module
 */
import type {
  CustomResourceDefinition,
  CustomResourceDefinitionCondition,
} from "../../../../shared/api/apiextensions/v1/types.ts";
import type { KindDef } from "../../generic/kind.ts";
import { rfc3339 } from "../../generic/clock.ts";

/** The finalizer that holds a deleted definition until its instances are gone. */
export const CUSTOM_RESOURCE_CLEANUP_FINALIZER = "customresourcecleanup.apiextensions.k8s.io";

/** A condition without its transition time. */
export type CrdCondition = Omit<CustomResourceDefinitionCondition, "lastTransitionTime">;

/** The condition of `type`, if set. */
export function findCondition(
  crd: CustomResourceDefinition,
  type: string,
): CustomResourceDefinitionCondition | undefined {
  return crd.status?.conditions?.find((c) => c.type === type);
}

/** Whether the condition `type` is True. */
export function isConditionTrue(crd: CustomResourceDefinition, type: string): boolean {
  return findCondition(crd, type)?.status === "True";
}

/**
 * Sets a condition (kube's SetCRDCondition): its transition time changes only when its
 * status does.
 */
export function setCondition(
  crd: CustomResourceDefinition,
  cond: CrdCondition,
  now = Date.now(),
): void {
  crd.status ??= {};
  const conditions = crd.status.conditions ??= [];
  const at = conditions.findIndex((c) => c.type === cond.type);
  const old = at >= 0 ? conditions[at] : undefined;
  const lastTransitionTime = old && old.status === cond.status
    ? old.lastTransitionTime
    : rfc3339(now);
  const next = { ...cond, lastTransitionTime };
  if (at >= 0) conditions[at] = next;
  else conditions.push(next);
}

/**
 * The CRD kind with its cleanup at deletion: the finalizer added on create, and the
 * Terminating condition set when deletion starts (as kube's CRD REST Delete).
 */
export function withCustomResourceCleanup(def: KindDef): KindDef {
  const inner = def.strategy;
  return {
    ...def,
    strategy: {
      ...inner,
      prepareForCreate(obj, user) {
        inner.prepareForCreate?.(obj, user);
        const fins = obj.metadata.finalizers ?? [];
        if (!fins.includes(CUSTOM_RESOURCE_CLEANUP_FINALIZER)) {
          obj.metadata.finalizers = [...fins, CUSTOM_RESOURCE_CLEANUP_FINALIZER];
        }
      },
      prepareForDeletion(obj) {
        inner.prepareForDeletion?.(obj);
        setCondition(obj as CustomResourceDefinition, {
          type: "Terminating",
          status: "True",
          reason: "InstanceDeletionPending",
          message:
            "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
        });
      },
    },
  };
}
