/** POST to a collection (create, answered 201), to a virtual kind, or to a subresource. */
import { StatusError } from "../../../shared/errors/status_error.ts";
import { apiVersionOf } from "../../registry/generic/kind.ts";
import type { ResourceContext } from "../context.ts";
import { objectResponse, warningHeader } from "../respond.ts";
import { isPretty } from "../negotiation.ts";
import { parseWriteQuery } from "../write_options.ts";
import { readObjectBody } from "./object_body.ts";
import { admissionAttributes } from "../../registry/generic/admission_attributes.ts";

/** Handles create. */
export async function handleCreate(ctx: ResourceContext): Promise<Response> {
  const q = parseWriteQuery(ctx.url.searchParams);
  const def = ctx.store.def;
  if (ctx.info.subresource) {
    const sub = def.subresources?.find((s) => s.name === ctx.info.subresource);
    if (!sub?.create) throw StatusError.methodNotSupported(ctx.store.groupResource, "create");
    const rk = sub.requestKind;
    const body = await readObjectBody(
      ctx,
      rk
        ? { apiVersion: apiVersionOf(rk), kind: rk.kind, alsoApiVersions: sub.acceptedApiVersions }
        : undefined,
    );
    const warn = (m: string) => void ctx.warnings.push(m);
    const opts = {
      dryRun: q.dryRun,
      user: ctx.user,
      warn,
      fieldValidation: ctx.url.searchParams.get("fieldValidation") || undefined,
    };
    await ctx.store.admitRequest({
      ...admissionAttributes(ctx.store.def, "CREATE", {
        object: body,
        namespace: ctx.info.namespace,
        name: ctx.info.name,
        subresource: ctx.info.subresource,
      }, opts),
    });
    const obj = await sub.create({
      namespace: ctx.info.namespace,
      name: ctx.info.name,
      body,
      user: ctx.user,
      warn: (m: string) => void ctx.warnings.push(warningHeader(m)),
      dryRun: q.dryRun,
      query: ctx.url.searchParams,
    });
    obj.apiVersion ??= rk ? apiVersionOf(rk) : apiVersionOf(def);
    obj.kind ??= rk?.kind ?? def.kind;
    return objectResponse(201, obj, ctx.format, {
      warnings: ctx.warnings,
      pretty: isPretty(ctx.url, ctx.req),
    });
  }
  if (ctx.info.name) throw StatusError.methodNotSupported(ctx.store.groupResource, "create");
  const body = await readObjectBody(ctx);
  if (def.virtual) {
    await ctx.store.admitRequest(
      admissionAttributes(def, "CREATE", { object: body, namespace: ctx.info.namespace }, {
        dryRun: q.dryRun,
        user: ctx.user,
        warn: (m: string) => void ctx.warnings.push(m),
        fieldValidation: ctx.url.searchParams.get("fieldValidation") || undefined,
      }),
    );
    const obj = await def.virtual.create({
      namespace: ctx.info.namespace,
      name: "",
      body,
      user: ctx.user,
      warn: (m: string) => void ctx.warnings.push(warningHeader(m)),
      dryRun: q.dryRun,
      query: ctx.url.searchParams,
    });
    obj.apiVersion ??= apiVersionOf(def);
    obj.kind ??= def.kind;
    return objectResponse(201, obj, ctx.format, {
      warnings: ctx.warnings,
      pretty: isPretty(ctx.url, ctx.req),
    });
  }
  const obj = await ctx.store.create(ctx.info.namespace, body, {
    dryRun: q.dryRun,
    user: ctx.user,
    warn: (m: string) => void ctx.warnings.push(warningHeader(m)),
    fieldManager: q.fieldManager,
    fieldValidation: ctx.url.searchParams.get("fieldValidation") || undefined,
    userAgent: ctx.req.headers.get("user-agent") ?? undefined,
  });
  return objectResponse(201, obj, ctx.format, {
    warnings: ctx.warnings,
    pretty: isPretty(ctx.url, ctx.req),
  });
}
