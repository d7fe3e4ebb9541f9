/** GET of a collection: selectors, paging and the resourceVersion table. */
import { StatusError } from "../../../shared/errors/status_error.ts";
import { parseFieldSelector } from "../../../shared/selectors/field_selector.ts";
import { parseLabelSelector } from "../../../shared/selectors/label_selector.ts";
import type { ListQuery } from "../../registry/generic/store.ts";
import type { ResourceContext } from "../context.ts";
import { parseListOptions, planList } from "../query.ts";
import { objectResponse } from "../respond.ts";

/** Builds the store's list query from the request's query parameters. */
export function listQueryOf(ctx: ResourceContext): ListQuery {
  const opts = parseListOptions(ctx.url.searchParams);
  const def = ctx.store.def;
  const query: ListQuery = { plan: planList(opts), limit: opts.limit || undefined };
  if (opts.labelSelector) {
    const sel = parseLabelSelector(opts.labelSelector);
    if (!sel.empty()) query.labels = (labels) => sel.matches(labels);
  }
  if (opts.fieldSelector) {
    const allowed = [
      "metadata.name",
      ...(def.namespaced ? ["metadata.namespace"] : []),
      ...(def.strategy.selectableFieldNames ?? []),
    ];
    const sel = parseFieldSelector(opts.fieldSelector);
    for (const r of sel.requirements) {
      if (!allowed.includes(r.field)) {
        throw StatusError.badRequest(
          `field label not supported: ${r.field}`,
        );
      }
    }
    if (!sel.empty()) query.fields = (fields) => sel.matches(fields);
  }
  return query;
}

/** Handles list. */
export async function handleList(ctx: ResourceContext): Promise<Response> {
  const list = await ctx.store.list(ctx.info.namespace, listQueryOf(ctx));
  return objectResponse(200, list, ctx.format, {
    warnings: ctx.warnings,
    head: ctx.req.method === "HEAD",
  });
}
