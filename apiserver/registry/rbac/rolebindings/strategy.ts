/** RoleBinding: subjects granted a Role or ClusterRole inside one namespace; roleRef immutable. */
import { nameIsPathSegment } from "../../../../shared/api/validation/name_validators.ts";
import type { KindDef } from "../../generic/kind.ts";
import { defaultBinding, validateBinding, validateBindingUpdate } from "../validation.ts";

/** The RoleBinding kind. */
export const roleBindingKind: KindDef = {
  group: "rbac.authorization.k8s.io",
  version: "v1",
  kind: "RoleBinding",
  plural: "rolebindings",
  singular: "rolebinding",
  namespaced: true,
  nameValidator: nameIsPathSegment,
  strategy: {
    prepareForCreate: defaultBinding,
    prepareForUpdate: defaultBinding,
    validate: (obj) => validateBinding(obj, true),
    validateUpdate: (obj, old) => validateBindingUpdate(obj, old, true),
  },
};
