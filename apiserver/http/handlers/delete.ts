/** DELETE of one object, honouring DeleteOptions (preconditions, propagation, grace). */
import { decodeBody, readBody } from "../body.ts";
import type { ResourceContext } from "../context.ts";
import { objectResponse } from "../respond.ts";
import { isPretty } from "../negotiation.ts";
import { parseDeleteOptions, parseWriteQuery } from "../write_options.ts";

/** Reads the optional DeleteOptions body of a DELETE. */
export async function readDeleteOptions(ctx: ResourceContext) {
  const bytes = await readBody(ctx.req, ctx.conn.body);
  const text = new TextDecoder().decode(bytes).trim();
  const body = text === ""
    ? undefined
    : await decodeBody(ctx.req.headers.get("content-type"), bytes, {
      yaml: ctx.yamlDecoder,
    });
  return parseDeleteOptions(body, ctx.url.searchParams);
}

/** Handles delete. */
export async function handleDelete(ctx: ResourceContext): Promise<Response> {
  const q = parseWriteQuery(ctx.url.searchParams);
  const options = await readDeleteOptions(ctx);
  const dryRun = q.dryRun || (options.dryRun?.length ?? 0) > 0;
  const { object } = await ctx.store.delete(ctx.info.namespace, ctx.info.name, options, {
    dryRun,
    user: ctx.user,
  });
  return objectResponse(200, object, ctx.format, {
    warnings: ctx.warnings,
    pretty: isPretty(ctx.url, ctx.req),
  });
}
