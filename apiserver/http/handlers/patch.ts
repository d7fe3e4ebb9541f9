/**
 * PATCH of an object or subresource. The handler decodes the request (patch type, options,
 * If-Match, body) and hands the store a `tryUpdate` that applies the patch to the object as
 * stored; the store's guaranteedUpdate does the rest (admission, validation, compare-and-swap,
 * retries when a concurrent write wins). A resourceVersion set by the patch is a precondition.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import { isObject } from "../../../shared/json/is_object.ts";
import type { PatchType } from "../../registry/generic/kind.ts";
import type { TryUpdate } from "../../registry/generic/store.ts";
import { readBody } from "../body.ts";
import type { ResourceContext } from "../context.ts";
import { parseMediaType } from "../negotiation.ts";
import type { PatchApplier, PatchArgs } from "../patch_applier.ts";
import { acceptedPatchTypes } from "../patch_appliers.ts";
import { parseBool } from "../query.ts";
import { objectResponse, warningHeader } from "../respond.ts";
import { parseWriteQuery } from "../write_options.ts";
import { viewDef, viewSubresource } from "./subresource_view.ts";

const APPLY_PATCH_TYPE: PatchType = "application/apply-patch+yaml";

/** Handles patch. */
export async function handlePatch(ctx: ResourceContext): Promise<Response> {
  const query = parseWriteQuery(ctx.url.searchParams);
  const contentType = ctx.req.headers.get("content-type");
  const mt = contentType ? parseMediaType(contentType) : undefined;
  const type = mt ? `${mt.type}/${mt.subtype}` : "";
  const accepted = acceptedPatchTypes(ctx.store.def, ctx.patchAppliers);
  const applier = accepted.includes(type as PatchType)
    ? ctx.patchAppliers.get(type as PatchType)
    : undefined;
  if (!applier) throw StatusError.unsupportedMediaType(contentType ?? "", accepted);
  const isApply = type === APPLY_PATCH_TYPE;
  // A subresource served as another kind (scale) is patched in that kind; apply is not served.
  const view = viewSubresource(ctx);
  if (view && isApply) {
    throw StatusError.unsupportedMediaType(contentType ?? "", accepted.filter((t) => t !== type));
  }
  if (!isApply && ctx.url.searchParams.has("force")) {
    throw StatusError.invalid({ group: "meta.k8s.io", kind: "PatchOptions" }, "", [{
      type: "FieldValueForbidden",
      field: "force",
      detail: "may not be specified for non-apply patch",
    }]);
  }
  // If-Match carries the resourceVersion the patch was computed against (a precondition).
  const ifMatch = ctx.req.headers.get("if-match")?.replace(/^W\//, "").replace(/^"(.*)"$/, "$1");
  const { namespace, name, subresource } = ctx.info;
  const q = ctx.url.searchParams;
  const request: Omit<PatchArgs, "current" | "warnings"> = {
    body: await readBody(ctx.req, ctx.conn.body),
    def: view ? viewDef(ctx.store.def, view) : ctx.store.def,
    name,
    subresource: subresource ?? "",
    contentType: contentType ?? "",
    query,
    force: q.has("force") ? parseBool(q.get("force")) : false,
    yaml: ctx.yamlDecoder,
  };
  const warnings: string[] = [];
  const { object, created } = await ctx.store.guaranteedUpdate(
    namespace,
    name,
    patchUpdate(applier, request, warnings, view?.view),
    { resourceVersion: ifMatch === "*" ? undefined : ifMatch },
    {
      dryRun: query.dryRun,
      user: ctx.user,
      warn: (m: string) => void ctx.warnings.push(warningHeader(m)),
      auditAnnotations: ctx.auditAnnotations,
      subresource: subresource || undefined,
      fieldManager: query.fieldManager,
      fieldValidation: ctx.url.searchParams.get("fieldValidation") || undefined,
      userAgent: ctx.req.headers.get("user-agent") ?? undefined,
      applied: isApply,
      allowCreate: isApply,
    },
  );
  for (const w of warnings) ctx.warnings.push(warningHeader(w));
  const answer = view?.view ? view.view(object) : object;
  return objectResponse(created ? 201 : 200, answer, ctx.format, { warnings: ctx.warnings });
}

/**
 * The patch as a tryUpdate: applies it to the stored object, each attempt afresh (`warnings`
 * holds the last attempt's). The patched object keeps the resourceVersion it was read at, so
 * the store writes it only over that; a patch that sets another one is a precondition.
 */
function patchUpdate(
  applier: PatchApplier,
  request: Omit<PatchArgs, "current" | "warnings">,
  warnings: string[],
  view?: (obj: KubeObject) => KubeObject,
): TryUpdate {
  return async (stored: KubeObject | undefined) => {
    warnings.length = 0;
    const current = stored && view ? view(stored) : stored;
    const next = await applier({ ...request, current, warnings });
    if (!current) return next;
    if (!isObject(next.metadata)) next.metadata = {};
    next.metadata.resourceVersion ??= current.metadata.resourceVersion;
    return next;
  };
}
