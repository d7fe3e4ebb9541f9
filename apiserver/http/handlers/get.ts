/** GET (and HEAD) of one object or one of its subresources. */
import { parseGetOptions } from "../query.ts";
import type { ResourceContext } from "../context.ts";
import { respondWithRepresentation } from "../respond.ts";
import { viewSubresource } from "./subresource_view.ts";

/** Handles get. */
export async function handleGet(ctx: ResourceContext): Promise<Response> {
  const opts = parseGetOptions(ctx.url.searchParams);
  const obj = await ctx.store.get(ctx.info.namespace, ctx.info.name, opts.resourceVersion);
  const view = viewSubresource(ctx)?.view;
  return respondWithRepresentation(ctx, view ? view(obj) : obj, { list: false });
}
