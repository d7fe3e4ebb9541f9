/**
 * deletecollection: every object of a list query deleted one at a time through the store's
 * delete (so each one passes admission as its own DELETE, as in kube-apiserver's registry).
 *
 * @module
 */
import type { DeleteOptions, KubeList, KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import { validateDeleteOptions } from "./delete_options.ts";
import type { ListQuery } from "./list_query.ts";
import type { KindDef } from "./kind.ts";

/** What deletecollection needs of the store: its kind, list and delete. */
export interface DeletingStore<O> {
  readonly def: KindDef;
  list(namespace: string, query: ListQuery): Promise<KubeList>;
  delete(
    namespace: string,
    name: string,
    options: DeleteOptions,
    opts: O,
  ): Promise<{ object: KubeObject; deleted: boolean }>;
}

/**
 * Deletes every object of a list query; answers, as kube-apiserver's registry does, the list
 * it read (kind `<Kind>List`, its resourceVersion) holding the objects it deleted.
 */
export async function deleteCollection<O>(
  store: DeletingStore<O>,
  namespace: string,
  query: ListQuery,
  options: DeleteOptions,
  opts: O,
): Promise<KubeList> {
  validateDeleteOptions(options);
  const list = await store.list(namespace, { ...query, limit: undefined });
  const deleted: KubeObject[] = [];
  for (const item of list.items) {
    if (store.def.strategy.deleteForbidden?.(item.metadata.name ?? "")) continue;
    try {
      const res = await store.delete(
        item.metadata.namespace ?? "",
        item.metadata.name!,
        options,
        opts,
      );
      deleted.push(res.object);
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) continue;
      throw err;
    }
  }
  return {
    kind: list.kind,
    apiVersion: list.apiVersion,
    metadata: { resourceVersion: list.metadata.resourceVersion },
    items: deleted,
  };
}
