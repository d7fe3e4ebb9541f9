/** Role: namespaced rules (no nonResourceURLs). */
import { nameIsPathSegment } from "../../../../shared/api/validation/name_validators.ts";
import type { KindDef } from "../../generic/kind.ts";
import { validateRules } from "../validation.ts";

/** The Role kind. */
export const roleKind: KindDef = {
  group: "rbac.authorization.k8s.io",
  version: "v1",
  kind: "Role",
  plural: "roles",
  singular: "role",
  namespaced: true,
  nameValidator: nameIsPathSegment,
  strategy: {
    validate: (obj) => validateRules(obj.rules, true),
  },
};
