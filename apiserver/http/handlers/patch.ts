/**
 * PATCH of an object or subresource: the patch is applied to the stored object and the
 * result goes through the update path (admission, validation, compare-and-swap). A
 * resourceVersion set by the patch is a precondition; without one a conflict is retried.
 *
 * Patch types are pluggable (`registerPatchType`); JSON Patch and JSON Merge Patch are built
 * in. Strategic merge and server-side apply register themselves with the schema model.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import { applyJsonPatch, JsonPatchError } from "../../../shared/patch/json_patch.ts";
import { applyMergePatch } from "../../../shared/patch/merge_patch.ts";
import { isObject } from "../../registry/generic/field_errors.ts";
import type { Store } from "../../registry/generic/store.ts";
import { MAX_BODY_BYTES, readBody } from "../body.ts";
import { checkBodyDepth, checkJsonTextDepth } from "../body_depth.ts";
import type { ResourceContext } from "../context.ts";
import { parseMediaType } from "../negotiation.ts";
import { objectResponse } from "../respond.ts";
import { parseWriteQuery, type WriteQuery } from "../write_options.ts";
import { validatePatchedObject } from "../../fieldmanager/validate_patched.ts";

/** What a patch type implementation receives. */
export interface PatchArgs {
  /** The stored object (absent when it does not exist). */
  current?: KubeObject;
  /** The raw patch body. */
  body: Uint8Array;
  store: Store;
  ctx: ResourceContext;
  query: WriteQuery;
}

/** A patch type: computes the new object, or signals create (for apply). */
export type PatchApplier = (args: PatchArgs) => KubeObject | Promise<KubeObject>;

const APPLIERS = new Map<string, PatchApplier>();

/** Registers a patch media type (e.g. `application/strategic-merge-patch+json`). */
export function registerPatchType(mediaType: string, applier: PatchApplier): void {
  APPLIERS.set(mediaType, applier);
}

/** The patch media types served. */
export function patchTypes(): string[] {
  return [...APPLIERS.keys()];
}

/** Parses a JSON patch body; 400 when it does not parse or nests too deep. */
export function parseJsonPatchBody(body: Uint8Array): unknown {
  const text = new TextDecoder().decode(body);
  checkJsonTextDepth(text);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw StatusError.badRequest(`error decoding patch: ${(err as Error).message}`);
  }
  checkBodyDepth(value);
  return value;
}

/** The most operations a JSON patch may have (kube-apiserver's maxJSONPatchOperations). */
export const MAX_JSON_PATCH_OPERATIONS = 10_000;
/** What copy operations may add to a document (kube-apiserver's JSONPatchMaxCopyBytes). */
export const JSON_PATCH_MAX_COPY_BYTES = MAX_BODY_BYTES;

registerPatchType("application/json-patch+json", ({ current, body }) => {
  const ops = parseJsonPatchBody(body);
  if (Array.isArray(ops) && ops.length > MAX_JSON_PATCH_OPERATIONS) {
    throw StatusError.requestEntityTooLarge(
      `The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${ops.length}`,
    );
  }
  try {
    const out = applyJsonPatch(current, ops, { maxCopyBytes: JSON_PATCH_MAX_COPY_BYTES });
    if (!isObject(out)) throw new JsonPatchError("the patched document is not an object", "failed");
    return out as KubeObject;
  } catch (err) {
    if (err instanceof JsonPatchError) {
      if (err.kind === "invalid") throw StatusError.badRequest(err.message);
      throw new StatusError({ code: 422, reason: "Invalid", message: err.message });
    }
    throw err;
  }
});

registerPatchType("application/merge-patch+json", ({ current, body }) => {
  const patch = parseJsonPatchBody(body);
  if (!isObject(patch)) {
    throw StatusError.badRequest("a merge patch must be a JSON object");
  }
  return applyMergePatch(current, patch) as KubeObject;
});

/** Handles patch. */
export async function handlePatch(ctx: ResourceContext): Promise<Response> {
  const query = parseWriteQuery(ctx.url.searchParams);
  const contentType = ctx.req.headers.get("content-type");
  const mt = contentType ? parseMediaType(contentType) : undefined;
  const type = mt ? `${mt.type}/${mt.subtype}` : "";
  const applier = APPLIERS.get(type);
  if (!applier) {
    throw StatusError.unsupportedMediaType(contentType ?? "", patchTypes());
  }
  const isApply = type === "application/apply-patch+yaml";
  if (!isApply && ctx.url.searchParams.has("force")) {
    throw StatusError.invalid({ group: "meta.k8s.io", kind: "PatchOptions" }, "", [{
      type: "FieldValueForbidden",
      field: "force",
      detail: "may not be specified for non-apply patch",
    }]);
  }
  const writer = {
    fieldManager: query.fieldManager,
    userAgent: ctx.req.headers.get("user-agent") ?? undefined,
    applied: isApply,
  };
  // If-Match carries the resourceVersion the patch was computed against (a precondition).
  const ifMatch = ctx.req.headers.get("if-match")?.replace(/^W\//, "").replace(/^"(.*)"$/, "$1");
  const warningsBefore = ctx.warnings.length;
  const body = await readBody(ctx.req, ctx.conn.body);
  const { namespace, name, subresource } = ctx.info;
  for (let attempt = 0;; attempt++) {
    ctx.warnings.length = warningsBefore;
    let current: KubeObject | undefined;
    try {
      current = await ctx.store.get(namespace, name);
    } catch (err) {
      if (
        !(err instanceof StatusError && err.code === 404 && type === "application/apply-patch+yaml")
      ) {
        throw err;
      }
    }
    if (current && ifMatch && ifMatch !== "*" && ifMatch !== current.metadata.resourceVersion) {
      throw StatusError.conflict(ctx.store.groupResource, name);
    }
    const next = await applier({ current, body, store: ctx.store, ctx, query });
    if (!isApply) validatePatchedObject(ctx, next);
    if (!current) {
      const created = await ctx.store.create(namespace, next, {
        dryRun: query.dryRun,
        user: ctx.user,
        ...writer,
      });
      return objectResponse(201, created, ctx.format, { warnings: ctx.warnings });
    }
    if (!isObject(next.metadata)) next.metadata = {};
    const readRv = current.metadata.resourceVersion;
    const patchedRv = next.metadata.resourceVersion;
    // A patch that leaves the resourceVersion as read is not a precondition: retry conflicts.
    const precondition = patchedRv !== undefined && patchedRv !== readRv;
    next.metadata.resourceVersion = patchedRv ?? readRv;
    try {
      const { object } = await ctx.store.update(namespace, name, next, {
        dryRun: query.dryRun,
        user: ctx.user,
        subresource: subresource || undefined,
        ...writer,
      });
      return objectResponse(200, object, ctx.format, { warnings: ctx.warnings });
    } catch (err) {
      if (
        err instanceof StatusError && err.code === 409 && err.reason === "Conflict" &&
        !precondition && attempt < 5
      ) {
        continue;
      }
      throw err;
    }
  }
}
