/** POST to a collection: create, answered 201. */
import { StatusError } from "../../../shared/errors/status_error.ts";
import type { ResourceContext } from "../context.ts";
import { objectResponse } from "../respond.ts";
import { parseWriteQuery } from "../write_options.ts";
import { readObjectBody } from "./object_body.ts";

/** Handles create. */
export async function handleCreate(ctx: ResourceContext): Promise<Response> {
  const q = parseWriteQuery(ctx.url.searchParams);
  if (ctx.info.subresource || ctx.info.name) {
    throw StatusError.methodNotSupported(ctx.store.groupResource, "create");
  }
  const body = await readObjectBody(ctx);
  const obj = await ctx.store.create(ctx.info.namespace, body, {
    dryRun: q.dryRun,
    user: ctx.user,
  });
  return objectResponse(201, obj, ctx.format, { warnings: ctx.warnings });
}
