/**
 * The patch types PATCH applies, one applier per media type: JSON Patch, JSON Merge Patch,
 * strategic merge patch (kinds of the schema model only) and server-side apply. The server
 * builds them once from the schema model and hands them to the PATCH handler; a kind declares
 * which of them it accepts (`KindDef.patchTypes`).
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import type { SchemaModel } from "../../shared/api/schema/model.ts";
import { StatusError } from "../../shared/errors/status_error.ts";
import { applyJsonPatch, JsonPatchError } from "../../shared/patch/json_patch.ts";
import { applyMergePatch } from "../../shared/patch/merge_patch.ts";
import {
  applyStrategicMergePatch,
  StrategicMergePatchError,
} from "../../shared/patch/strategic_merge_patch.ts";
import { strategicSchemaOf } from "../../shared/patch/strategic_schema.ts";
import { isObject } from "../../shared/json/is_object.ts";
import { ALL_PATCH_TYPES, type KindDef, type PatchType } from "../registry/generic/kind.ts";
import { applyPatch } from "./apply_patch.ts";
import { MAX_BODY_BYTES } from "./body.ts";
import { checkBodyDepth, checkJsonTextDepth } from "./body_depth.ts";
import { applyFieldValidation } from "./field_validation.ts";
import type { PatchApplier, PatchAppliers, PatchArgs } from "./patch_applier.ts";

/** The most operations a JSON patch may have (kube-apiserver's maxJSONPatchOperations). */
export const MAX_JSON_PATCH_OPERATIONS = 10_000;
/** What copy operations may add to a document (kube-apiserver's JSONPatchMaxCopyBytes). */
export const JSON_PATCH_MAX_COPY_BYTES = MAX_BODY_BYTES;

const STRATEGIC_MERGE_PATCH_TYPE: PatchType = "application/strategic-merge-patch+json";

/** The appliers of every patch type; `model` gives the strategic merge patch its schemas. */
export function patchAppliers(model: SchemaModel): PatchAppliers {
  const validated = (args: PatchArgs, obj: KubeObject) => {
    validatePatchedObject(model, args, obj);
    return obj;
  };
  return new Map<PatchType, PatchApplier>([
    ["application/json-patch+json", (args) => validated(args, jsonPatch(args))],
    ["application/merge-patch+json", (args) => validated(args, mergePatch(args))],
    [STRATEGIC_MERGE_PATCH_TYPE, (args) => validated(args, strategicMergePatch(model, args))],
    ["application/apply-patch+yaml", applyPatch],
  ]);
}

/** The patch types a kind accepts and the server serves, in kube-apiserver's order. */
export function acceptedPatchTypes(def: KindDef, appliers: PatchAppliers): PatchType[] {
  return (def.patchTypes ?? ALL_PATCH_TYPES).filter((t) => appliers.has(t));
}

/** Parses a JSON patch body; 400 when it does not parse or nests too deep. */
function parseJsonPatchBody(body: Uint8Array): unknown {
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

function jsonPatch({ current, body }: PatchArgs): KubeObject {
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
}

function mergePatch({ current, body }: PatchArgs): KubeObject {
  const patch = parseJsonPatchBody(body);
  if (!isObject(patch)) {
    throw StatusError.badRequest("a merge patch must be a JSON object");
  }
  return applyMergePatch(current, patch) as KubeObject;
}

/** A strategic merge patch of an object whose kind the schema model has; 415 for others. */
function strategicMergePatch(
  model: SchemaModel,
  { current, body, def, contentType }: PatchArgs,
): KubeObject {
  const type = model.kind(def.group, def.version, def.kind);
  if (!type) {
    throw StatusError.unsupportedMediaType(
      contentType,
      (def.patchTypes ?? ALL_PATCH_TYPES).filter((t) => t !== STRATEGIC_MERGE_PATCH_TYPE),
    );
  }
  const patch = parseJsonPatchBody(body);
  if (!isObject(patch)) {
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

/**
 * Validates a patched object like a create or update body (unknown fields dropped in place),
 * adding its warnings to the request's.
 */
function validatePatchedObject(model: SchemaModel, args: PatchArgs, obj: KubeObject): void {
  const def = args.def;
  const warnings = applyFieldValidation({
    model,
    type: model.kind(def.group, def.version, def.kind),
    value: obj,
    duplicates: [],
    directive: args.query.fieldValidation,
    kind: { group: def.group, kind: def.kind },
    pruned: def.pruneUnknownFields?.(obj),
  });
  args.warnings.push(...warnings);
}
