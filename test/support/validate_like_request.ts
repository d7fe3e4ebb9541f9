/**
 * A kind's validation as a create or update request meets it: the schema's field validation
 * first (its type errors are a 422 before the store is reached), then the kind's strategy.
 * Required fields are left to the tests that are about them.
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { builtinSchemaModel } from "../../shared/api/schema/builtin_model.ts";
import { validateFields } from "../../shared/api/schema/validate_fields.ts";
import type { FieldError } from "../../shared/errors/status_error.ts";
import type { KindDef } from "../../apiserver/registry/generic/kind.ts";

/** The field errors a request with `obj` gets: the schema's if any, else the strategy's. */
export function validateLikeRequest(def: KindDef, obj: KubeObject): FieldError[] {
  const model = builtinSchemaModel();
  const type = model.kind(def.group, def.version, def.kind);
  const typed = type ? validateFields(model, type, obj, { required: false }).errors : [];
  return typed.length > 0 ? typed : def.strategy.validate(obj);
}
