/**
 * validateWrite: the checks every write of a kind passes before storage, ObjectMeta's rules (on
 * create, or the immutability rules on update) and the kind strategy's errors, answered as one
 * 422 Invalid naming every problem.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { type FieldError, StatusError } from "../../../shared/errors/status_error.ts";
import {
  validateObjectMeta,
  validateObjectMetaUpdate,
} from "../../../shared/api/validation/object_meta.ts";
import type { KindDef } from "./kind.ts";

/** Throws 422 when `obj` (replacing `old`, when given) breaks a metadata or strategy rule. */
export function validateWrite(
  def: KindDef,
  obj: KubeObject,
  strategyErrors: FieldError[],
  old: KubeObject | undefined,
): void {
  const errors = old
    ? validateObjectMetaUpdate(obj.metadata, old.metadata)
    : validateObjectMeta(obj.metadata, {
      namespaced: def.namespaced,
      nameIsLabel: !!def.nameIsLabel,
      nameValidator: def.nameValidator,
    });
  errors.push(...strategyErrors);
  if (errors.length > 0) {
    throw StatusError.invalid(
      { group: def.group, kind: def.kind },
      obj.metadata.name ?? obj.metadata.generateName ?? "",
      errors,
    );
  }
}
