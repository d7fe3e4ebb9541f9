/**
 * The store's hook: keeps `metadata.managedFields` current on every write of a kind. Non-apply
 * writes are recorded as `Update` by the request's manager; a write computed by server-side
 * apply carries its managedFields already.
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { builtinSchemaModel } from "../../shared/api/schema/builtin_model.ts";
import { FieldManager } from "./field_manager.ts";
import { FieldSet } from "./field_set.ts";
import { managerOrUserAgent } from "./manager_name.ts";
import { fieldElement } from "./path_element.ts";
import { kindSchema } from "./schema_from_model.ts";
import { customResourceKindSchema } from "./schema_from_crd.ts";
import type { JSONSchemaProps } from "../../shared/api/apiextensions/v1/types.ts";

/** The parts of a kind declaration the field manager needs. */
export interface TrackedKind {
  group: string;
  version: string;
  kind: string;
  subresources?: readonly { name: string }[];
  /** A custom resource's schema: ownership follows its list and map markers. */
  customResourceSchema?: JSONSchemaProps;
}

/** Who writes, as the store's write options carry it. */
export interface WriterInfo {
  fieldManager?: string;
  userAgent?: string;
  /** The object's managedFields were computed by server-side apply. */
  applied?: boolean;
  subresource?: string;
}

const MANAGERS = new WeakMap<TrackedKind, Map<string, FieldManager>>();

/** The field manager of a kind's endpoint (main resource or a subresource), cached. */
export function fieldManagerFor(def: TrackedKind, subresource = ""): FieldManager {
  let byEndpoint = MANAGERS.get(def);
  if (!byEndpoint) {
    byEndpoint = new Map();
    MANAGERS.set(def, byEndpoint);
  }
  let fm = byEndpoint.get(subresource);
  if (!fm) {
    const hasStatus = def.subresources?.some((s) => s.name === "status") ?? false;
    const ignore = subresource === "status"
      ? FieldSet.of([fieldElement("spec")])
      : !subresource && hasStatus
      ? FieldSet.of([fieldElement("status")])
      : undefined;
    fm = new FieldManager({
      schema: def.customResourceSchema
        ? customResourceKindSchema(builtinSchemaModel(), def.customResourceSchema)
        : kindSchema(builtinSchemaModel(), def.group, def.version, def.kind),
      group: def.group,
      version: def.version,
      kind: def.kind,
      subresource,
      ignore,
    });
    byEndpoint.set(subresource, fm);
  }
  return fm;
}

/**
 * Sets `next.metadata.managedFields` for a write from `live` (undefined on create) to `next`;
 * `body` is the request's object (its managedFields ask for a reset, or were computed by apply).
 */
export function maintainManagedFields(
  def: TrackedKind,
  live: KubeObject | undefined,
  next: KubeObject,
  body: KubeObject,
  who: WriterInfo,
): void {
  if (who.applied) {
    const mf = body.metadata?.managedFields;
    if (mf) next.metadata.managedFields = mf;
    else delete next.metadata.managedFields;
    return;
  }
  fieldManagerFor(def, who.subresource ?? "").update(
    live,
    next,
    managerOrUserAgent(who.fieldManager, who.userAgent),
  );
}
