/**
 * Subresources served as another kind (`scale` as autoscaling/v1 Scale): which one a request
 * addresses, and the kind its bodies have.
 *
 * @module
 */
import type { KindDef, SubresourceDef } from "../../registry/generic/kind.ts";
import type { ResourceContext } from "../context.ts";

/** The addressed subresource when it is served as another kind (it has a `view`). */
export function viewSubresource(ctx: ResourceContext): SubresourceDef | undefined {
  const name = ctx.info.subresource;
  if (!name) return undefined;
  const sub = ctx.store.def.subresources?.find((s) => s.name === name);
  return sub?.view && sub.requestKind ? sub : undefined;
}

/** The kind declaration patch appliers see for a view: the parent's, named as the view's kind. */
export function viewDef(def: KindDef, sub: SubresourceDef): KindDef {
  return {
    ...def,
    ...sub.requestKind,
    // The view is not the parent's schema (a custom resource's Scale is autoscaling/v1's).
    customResourceSchema: undefined,
    pruneUnknownFields: undefined,
  };
}
