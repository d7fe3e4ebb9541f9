/**
 * applyPatch: the applier of server-side apply (`application/apply-patch+yaml`). It decodes
 * the request (the YAML configuration, `fieldManager`, `force`, `fieldValidation`) and hands
 * plain values to the field manager, which merges the configuration into the object.
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../shared/errors/status_error.ts";
import { FIELD_MANAGER_MAX_LENGTH } from "../fieldmanager/manager_name.ts";
import { fieldManagerFor } from "../fieldmanager/track_write.ts";
import { validateApplyConfig } from "../fieldmanager/validate_apply_config.ts";
import { isObject } from "../../shared/json/is_object.ts";
import { decodeRequestBody } from "./body.ts";
import type { YamlDecoder } from "./yaml_decoder.ts";
import type { PatchArgs } from "./patch_applier.ts";

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
export async function applyPatch(args: PatchArgs): Promise<KubeObject> {
  const { current, body, def, name, query } = args;
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
  const { config, duplicates } = await decodeApplyConfig(
    body,
    query.fieldValidation !== "Ignore",
    args.yaml,
  );
  args.warnings.push(...validateApplyConfig(def, config, duplicates, query.fieldValidation));
  const meta = isObject(config.metadata) ? config.metadata : {};
  if (!current && meta.uid) {
    throw StatusError.conflict(
      { group: def.group, resource: def.plural },
      name,
      `uid mismatch: the provided object specified uid ${meta.uid}, and no existing object was found`,
    );
  }
  const out = fieldManagerFor(def, args.subresource).apply(current, config, manager, args.force);
  if (!current && (out.metadata?.name ?? "") !== name) {
    throw StatusError.badRequest(
      `the name of the object (${
        out.metadata?.name ?? ""
      }) does not match the name on the URL (${name})`,
    );
  }
  return out;
}

/** Decodes the YAML configuration of an apply: 400 when it is not YAML of an object. */
async function decodeApplyConfig(
  body: Uint8Array,
  findDuplicates: boolean,
  yaml: YamlDecoder | undefined,
): Promise<{ config: Record<string, unknown>; duplicates: readonly string[] }> {
  let decoded;
  try {
    decoded = await decodeRequestBody("application/yaml", body, {
      findDuplicates,
      protobuf: false,
      yaml,
    });
  } catch (err) {
    if (err instanceof StatusError) {
      throw StatusError.badRequest(`error decoding YAML: ${err.message}`);
    }
    throw err;
  }
  const config = decoded.value;
  if (!isObject(config)) {
    throw StatusError.badRequest("error decoding YAML: the apply patch must be an object");
  }
  return { config, duplicates: decoded.duplicates };
}
