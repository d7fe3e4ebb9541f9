/**
 * Computed kinds: read-only kinds whose objects are computed on every read rather than
 * stored (ComponentStatus, the resource metrics). Get and list serve them with label and field selectors; there is
 * no watch cache, paging or resourceVersion history.
 *
 * @module
 */
import type { KubeList, KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import { apiVersionOf, type KindDef } from "./kind.ts";
import type { ListQuery } from "./list_query.ts";

/** The objects of `def` (in `namespace` when namespaced), with apiVersion and kind set. */
async function objects(def: KindDef, namespace: string): Promise<KubeObject[]> {
  const ns = def.namespaced ? namespace : "";
  const items = (await def.computed!.list(ns)).filter((o) => !ns || o.metadata.namespace === ns);
  for (const o of items) {
    o.apiVersion = apiVersionOf(def);
    o.kind = def.kind;
  }
  return items;
}

/** Get of a computed kind. */
export async function computedGet(
  def: KindDef,
  namespace: string,
  name: string,
): Promise<KubeObject> {
  const found = (await objects(def, namespace)).find((o) => o.metadata.name === name);
  if (!found) throw StatusError.notFound({ group: def.group, resource: def.plural }, name);
  return found;
}

/** List of a computed kind, filtered by the query's selectors (`fieldsOf` for fields). */
export async function computedList(
  def: KindDef,
  namespace: string,
  query: Pick<ListQuery, "labels" | "fields">,
  fieldsOf: (o: KubeObject) => Record<string, string>,
): Promise<KubeList> {
  const keep = (o: KubeObject) =>
    (!query.labels || query.labels(o.metadata.labels ?? {})) &&
    (!query.fields || query.fields(fieldsOf(o)));
  return {
    kind: `${def.kind}List`,
    apiVersion: apiVersionOf(def),
    metadata: {},
    items: (await objects(def, namespace)).filter(keep),
  };
}
