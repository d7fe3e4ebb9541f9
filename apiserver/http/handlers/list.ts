/** GET of a collection: selectors, paging and the resourceVersion table. */
import {
  defaultMetaFieldLabels,
  type FieldLabelConverter,
  supportedFieldLabels,
} from "../../../shared/selectors/field_selector.ts";
import type { KindDef } from "../../registry/generic/kind.ts";
import type { ListQuery } from "../../registry/generic/list_query.ts";
import type { ResourceContext } from "../context.ts";
import { type ListOptions, pageLimit, parseListOptions, planList } from "../query.ts";
import { respondWithRepresentation } from "../respond.ts";

/** The field label converter of a kind: its selectable fields, or metadata only. */
export function fieldLabelsOf(def: KindDef): FieldLabelConverter {
  const aliases = def.servedFrom?.fieldLabels;
  if (aliases) {
    const meta = ["metadata.name", ...(def.namespaced ? ["metadata.namespace"] : [])];
    return supportedFieldLabels(meta, aliases);
  }
  if (def.servedFrom) return fieldLabelsOf(def.servedFrom.storage);
  const own = def.strategy.selectableFieldNames ?? [];
  if (own.length === 0) return defaultMetaFieldLabels;
  return supportedFieldLabels(
    ["metadata.name", ...(def.namespaced ? ["metadata.namespace"] : []), ...own],
    def.strategy.fieldLabelAliases,
    def.strategy.fieldLabelError,
  );
}

/** Parses the list options of a request for the context's kind. */
export function listOptionsOf(ctx: ResourceContext, forceWatch = false): ListOptions {
  return parseListOptions(ctx.url.searchParams, {
    fieldLabels: fieldLabelsOf(ctx.store.def),
    forceWatch,
    watchListEnabled: ctx.watchListEnabled,
  });
}

/** Builds the store's list query from parsed list options. */
export function listQueryFrom(opts: ListOptions): ListQuery {
  const query: ListQuery = { plan: planList(opts), limit: pageLimit(opts) };
  if (!opts.labels.empty()) query.labels = (labels) => opts.labels.matches(labels);
  if (!opts.fields.empty()) query.fields = (fields) => opts.fields.matches(fields);
  return query;
}

/** Builds the store's list query from the request's query parameters. */
export function listQueryOf(ctx: ResourceContext): ListQuery {
  return listQueryFrom(listOptionsOf(ctx));
}

/** Handles list. */
export async function handleList(ctx: ResourceContext): Promise<Response> {
  const list = await ctx.store.list(ctx.info.namespace, listQueryOf(ctx));
  return respondWithRepresentation(ctx, list, { list: true });
}
