/** POST to a collection (create, answered 201), to a virtual kind, or to a subresource. */
import { StatusError } from "../../../shared/errors/status_error.ts";
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { apiVersionOf, type SubresourceDef } from "../../registry/generic/kind.ts";
import type { ResourceContext } from "../context.ts";
import { objectResponse, warningHeader } from "../respond.ts";
import { isPretty } from "../negotiation.ts";
import { parseWriteQuery, type WriteQuery } from "../write_options.ts";
import { readObjectBody } from "./object_body.ts";
import { admissionAttributes } from "../../registry/generic/admission_attributes.ts";

/** Handles create. */
export async function handleCreate(ctx: ResourceContext): Promise<Response> {
  const q = parseWriteQuery(ctx.url.searchParams);
  const def = ctx.store.def;
  if (ctx.info.subresource) {
    const sub = def.subresources?.find((s) => s.name === ctx.info.subresource);
    if (!sub?.create) throw StatusError.methodNotSupported(ctx.store.groupResource, "create");
    return await createSubresource(ctx, sub, q);
  }
  if (ctx.info.name) throw StatusError.methodNotSupported(ctx.store.groupResource, "create");
  const body = await readObjectBody(ctx);
  if (def.virtual) return await createVirtual(ctx, body, q);
  const obj = await ctx.store.create(ctx.info.namespace, body, {
    dryRun: q.dryRun,
    user: ctx.user,
    warn: warnerOf(ctx),
    auditAnnotations: ctx.auditAnnotations,
    fieldManager: q.fieldManager,
    fieldValidation: fieldValidationOf(ctx),
    userAgent: ctx.req.headers.get("user-agent") ?? undefined,
  });
  return created(ctx, obj);
}

/** POST to a subresource with its own create (serviceaccounts/token, pods/eviction, …). */
async function createSubresource(
  ctx: ResourceContext,
  sub: SubresourceDef,
  q: WriteQuery,
): Promise<Response> {
  const def = ctx.store.def;
  const rk = sub.requestKind;
  const body = await readObjectBody(
    ctx,
    rk
      ? { apiVersion: apiVersionOf(rk), kind: rk.kind, alsoApiVersions: sub.acceptedApiVersions }
      : undefined,
  );
  const { namespace, name, subresource } = ctx.info;
  const warn = warnerOf(ctx);
  await ctx.store.admitRequest(
    admissionAttributes(def, "CREATE", { object: body, namespace, name, subresource }, {
      dryRun: q.dryRun,
      user: ctx.user,
      warn,
      fieldValidation: fieldValidationOf(ctx),
    }),
  );
  const obj = await sub.create!({
    namespace,
    name,
    body,
    user: ctx.user,
    warn,
    dryRun: q.dryRun,
    query: ctx.url.searchParams,
  });
  obj.apiVersion ??= rk ? apiVersionOf(rk) : apiVersionOf(def);
  obj.kind ??= rk?.kind ?? def.kind;
  return created(ctx, obj);
}

/** POST to a virtual kind (the review APIs): computed, never stored. */
async function createVirtual(
  ctx: ResourceContext,
  body: KubeObject,
  q: WriteQuery,
): Promise<Response> {
  const def = ctx.store.def;
  const warn = warnerOf(ctx);
  await ctx.store.admitRequest(
    admissionAttributes(def, "CREATE", { object: body, namespace: ctx.info.namespace }, {
      dryRun: q.dryRun,
      user: ctx.user,
      warn,
      fieldValidation: fieldValidationOf(ctx),
    }),
  );
  const obj = await def.virtual!.create({
    namespace: ctx.info.namespace,
    name: "",
    body,
    user: ctx.user,
    warn,
    dryRun: q.dryRun,
    query: ctx.url.searchParams,
  });
  obj.apiVersion ??= apiVersionOf(def);
  obj.kind ??= def.kind;
  return created(ctx, obj);
}

/** Adds a warning to the response, as a `Warning` header value. */
function warnerOf(ctx: ResourceContext): (message: string) => void {
  return (m) => void ctx.warnings.push(warningHeader(m));
}

function fieldValidationOf(ctx: ResourceContext): string | undefined {
  return ctx.url.searchParams.get("fieldValidation") || undefined;
}

function created(ctx: ResourceContext, obj: KubeObject): Response {
  return objectResponse(201, obj, ctx.format, {
    warnings: ctx.warnings,
    pretty: isPretty(ctx.url, ctx.req),
  });
}
