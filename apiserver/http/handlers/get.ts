/** GET (and HEAD) of one object or one of its subresources. */
import { parseGetOptions } from "../query.ts";
import type { ResourceContext } from "../context.ts";
import { objectResponse } from "../respond.ts";

/** Handles get. */
export async function handleGet(ctx: ResourceContext): Promise<Response> {
  const opts = parseGetOptions(ctx.url.searchParams);
  const obj = await ctx.store.get(ctx.info.namespace, ctx.info.name, opts.resourceVersion);
  return objectResponse(200, obj, ctx.format, {
    warnings: ctx.warnings,
    head: ctx.req.method === "HEAD",
  });
}
