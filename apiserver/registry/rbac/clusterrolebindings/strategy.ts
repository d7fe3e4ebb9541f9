/** ClusterRoleBinding: subjects granted a ClusterRole everywhere; roleRef immutable. */
import { nameIsPathSegment } from "../../../../shared/api/validation/name_validators.ts";
import type { KindDef } from "../../generic/kind.ts";
import { defaultBinding, validateBinding, validateBindingUpdate } from "../validation.ts";

/** The ClusterRoleBinding kind. */
export const clusterRoleBindingKind: KindDef = {
  group: "rbac.authorization.k8s.io",
  version: "v1",
  kind: "ClusterRoleBinding",
  plural: "clusterrolebindings",
  singular: "clusterrolebinding",
  namespaced: false,
  nameValidator: nameIsPathSegment,
  strategy: {
    prepareForCreate: defaultBinding,
    prepareForUpdate: defaultBinding,
    validate: (obj) => validateBinding(obj, false),
    validateUpdate: (obj, old) => validateBindingUpdate(obj, old, false),
  },
};
