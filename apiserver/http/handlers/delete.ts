/** DELETE of one object, honouring DeleteOptions (preconditions, propagation, grace). */
import { decodeBody, readBody } from "../body.ts";
import type { ResourceContext } from "../context.ts";
import { objectResponse, warningHeader } from "../respond.ts";
import { isPretty } from "../negotiation.ts";
import { parseDeleteOptions, parseWriteQuery } from "../write_options.ts";
import type { KubeObject, Status } from "../../../shared/api/meta/v1/types.ts";
import type { KindDef } from "../../registry/generic/kind.ts";

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

/**
 * The Success Status kube-apiserver answers for an object removed at once by a registry that
 * does not return the deleted object: details name the object, its group (omitted for the core
 * group), its plural resource name as `kind`, and its uid. Like kube's, it carries no `code`.
 */
export function deletedStatus(def: KindDef, obj: KubeObject): Omit<Status, "code"> {
  const details: NonNullable<Status["details"]> = { name: obj.metadata.name };
  if (def.group) details.group = def.group;
  details.kind = def.plural;
  if (obj.metadata.uid) details.uid = obj.metadata.uid;
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", details };
}

/** Handles delete. */
export async function handleDelete(ctx: ResourceContext): Promise<Response> {
  const q = parseWriteQuery(ctx.url.searchParams);
  const options = await readDeleteOptions(ctx);
  const dryRun = q.dryRun || (options.dryRun?.length ?? 0) > 0;
  const { object, deleted } = await ctx.store.delete(
    ctx.info.namespace,
    ctx.info.name,
    options,
    {
      dryRun,
      user: ctx.user,
      warn: (m: string) => void ctx.warnings.push(warningHeader(m)),
      auditAnnotations: ctx.auditAnnotations,
    },
  );
  const def = ctx.store.def;
  const body = deleted && !def.returnDeletedObject ? deletedStatus(def, object) : object;
  return objectResponse(200, body, ctx.format, {
    warnings: ctx.warnings,
    pretty: isPretty(ctx.url, ctx.req),
  });
}
