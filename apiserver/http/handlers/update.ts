/** PUT of an object or a subresource: replace, 409 on a stale resourceVersion. */
import type { ResourceContext } from "../context.ts";
import { objectResponse, warningHeader } from "../respond.ts";
import { isPretty } from "../negotiation.ts";
import { parseWriteQuery } from "../write_options.ts";
import { readObjectBody } from "./object_body.ts";
import { viewSubresource } from "./subresource_view.ts";
import { apiVersionOf } from "../../registry/generic/kind.ts";

/** Handles update. */
export async function handleUpdate(ctx: ResourceContext): Promise<Response> {
  const q = parseWriteQuery(ctx.url.searchParams);
  const sub = viewSubresource(ctx);
  const rk = sub?.requestKind;
  const body = await readObjectBody(ctx, rk && { apiVersion: apiVersionOf(rk), kind: rk.kind });
  const { object, created } = await ctx.store.update(ctx.info.namespace, ctx.info.name, body, {
    dryRun: q.dryRun,
    user: ctx.user,
    warn: (m: string) => void ctx.warnings.push(warningHeader(m)),
    auditAnnotations: ctx.auditAnnotations,
    subresource: ctx.info.subresource || undefined,
    fieldManager: q.fieldManager,
    fieldValidation: ctx.url.searchParams.get("fieldValidation") || undefined,
    userAgent: ctx.req.headers.get("user-agent") ?? undefined,
  });
  return objectResponse(created ? 201 : 200, sub?.view ? sub.view(object) : object, ctx.format, {
    warnings: ctx.warnings,
    pretty: isPretty(ctx.url, ctx.req),
  });
}
