/**
 * DELETE of a collection: deletes every selected object and answers, as kube-apiserver does,
 * the list of the objects it deleted.
 */
import type { ResourceContext } from "../context.ts";
import { objectResponse, warningHeader } from "../respond.ts";
import { isPretty } from "../negotiation.ts";
import { parseWriteQuery } from "../write_options.ts";
import { readDeleteOptions } from "./delete.ts";
import { listQueryOf } from "./list.ts";

/** Handles deletecollection. */
export async function handleDeleteCollection(ctx: ResourceContext): Promise<Response> {
  const q = parseWriteQuery(ctx.url.searchParams);
  const options = await readDeleteOptions(ctx);
  const query = listQueryOf(ctx);
  const deleted = await ctx.store.deleteCollection(ctx.info.namespace, query, options, {
    dryRun: q.dryRun || (options.dryRun?.length ?? 0) > 0,
    user: ctx.user,
    warn: (m: string) => void ctx.warnings.push(warningHeader(m)),
    auditAnnotations: ctx.auditAnnotations,
  });
  return objectResponse(200, deleted, ctx.format, {
    warnings: ctx.warnings,
    pretty: isPretty(ctx.url, ctx.req),
  });
}
