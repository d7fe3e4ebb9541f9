/**
 * Registers the two schema-aware patch types with the PATCH handler: server-side apply
 * (`application/apply-patch+yaml`) and strategic merge patch
 * (`application/strategic-merge-patch+json`, built-in kinds only; 415 for others).
 * Imported once for its effect (by the server).
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { builtinSchemaModel } from "../../shared/api/schema/builtin_model.ts";
import { StatusError } from "../../shared/errors/status_error.ts";
import {
  applyStrategicMergePatch,
  StrategicMergePatchError,
} from "../../shared/patch/strategic_merge_patch.ts";
import { strategicSchemaOf } from "../../shared/patch/strategic_schema.ts";
import { decodeRequestBody } from "../http/body.ts";
import {
  parseJsonPatchBody,
  type PatchArgs,
  patchTypes,
  registerPatchType,
} from "../http/handlers/patch.ts";
import { parseBool } from "../http/query.ts";
import { FIELD_MANAGER_MAX_LENGTH } from "./manager_name.ts";
import { fieldManagerFor } from "./track_write.ts";
import { fieldValidationDirective, validateApplyConfig } from "./validate_patched.ts";
import { isJsonObject } from "./value.ts";

/** The server-side apply media type. */
export const APPLY_PATCH_TYPE = "application/apply-patch+yaml";
/** The strategic merge patch media type. */
export const STRATEGIC_MERGE_PATCH_TYPE = "application/strategic-merge-patch+json";

function patchOptionsInvalid(
  field: string,
  type: "FieldValueRequired" | "FieldValueForbidden" | "FieldValueTooLong",
  detail: string,
): StatusError {
  return StatusError.invalid({ group: "meta.k8s.io", kind: "PatchOptions" }, "", [{
    type,
    field,
    detail,
  }]);
}

/** Computes the object a server-side apply produces (creating when `current` is absent). */
export function applyPatch({ current, body, ctx, query }: PatchArgs): KubeObject {
  const q = ctx.url.searchParams;
  const force = q.has("force") ? parseBool(q.get("force")) : false;
  const manager = query.fieldManager ?? "";
  if (manager === "") {
    throw patchOptionsInvalid("fieldManager", "FieldValueRequired", "is required for apply patch");
  }
  if (manager.length > FIELD_MANAGER_MAX_LENGTH) {
    throw patchOptionsInvalid(
      "fieldManager",
      "FieldValueTooLong",
      "may not be more than 128 bytes",
    );
  }
  let decoded;
  try {
    decoded = decodeRequestBody("application/yaml", body, {
      findDuplicates: fieldValidationDirective(q) !== "Ignore",
      protobuf: false,
    });
  } catch (err) {
    if (err instanceof StatusError) {
      throw StatusError.badRequest(`error decoding YAML: ${err.message}`);
    }
    throw err;
  }
  const config = decoded.value;
  if (!isJsonObject(config)) {
    throw StatusError.badRequest("error decoding YAML: the apply patch must be an object");
  }
  validateApplyConfig(ctx, config, decoded.duplicates);
  const def = ctx.store.def;
  const { name } = ctx.info;
  const meta = isJsonObject(config.metadata) ? config.metadata : {};
  if (!current && meta.uid) {
    throw StatusError.conflict(
      ctx.store.groupResource,
      name,
      `uid mismatch: the provided object specified uid ${meta.uid}, and no existing object was found`,
    );
  }
  const fm = fieldManagerFor(def, ctx.info.subresource ?? "");
  const out = fm.apply(current, config, manager, force);
  if (!current && (out.metadata?.name ?? "") !== name) {
    throw StatusError.badRequest(
      `the name of the object (${
        out.metadata?.name ?? ""
      }) does not match the name on the URL (${name})`,
    );
  }
  return out;
}

/** Applies a strategic merge patch to the current object of a built-in kind. */
export function strategicMergePatch({ current, body, ctx }: PatchArgs): KubeObject {
  const def = ctx.store.def;
  const model = builtinSchemaModel();
  const type = model.kind(def.group, def.version, def.kind);
  if (!type) {
    throw StatusError.unsupportedMediaType(
      ctx.req.headers.get("content-type") ?? STRATEGIC_MERGE_PATCH_TYPE,
      patchTypes().filter((t) => t !== STRATEGIC_MERGE_PATCH_TYPE),
    );
  }
  const patch = parseJsonPatchBody(body);
  if (!isJsonObject(patch)) {
    throw StatusError.badRequest("a strategic merge patch must be a JSON object");
  }
  try {
    return applyStrategicMergePatch(
      current,
      patch,
      strategicSchemaOf(model, type.name),
    ) as KubeObject;
  } catch (err) {
    if (err instanceof StrategicMergePatchError) {
      throw new StatusError({ code: 422, reason: "Invalid", message: err.message });
    }
    throw err;
  }
}

registerPatchType(APPLY_PATCH_TYPE, applyPatch);
registerPatchType(STRATEGIC_MERGE_PATCH_TYPE, strategicMergePatch);
