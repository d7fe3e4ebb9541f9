/** ClusterRole: cluster-wide rules, nonResourceURLs, and an optional aggregationRule. */
import { nameIsPathSegment } from "../../../../shared/api/validation/name_validators.ts";
import type { KindDef } from "../../generic/kind.ts";
import { validateAggregationRule, validateRules } from "../validation.ts";

/** The ClusterRole kind. */
export const clusterRoleKind: KindDef = {
  group: "rbac.authorization.k8s.io",
  version: "v1",
  kind: "ClusterRole",
  plural: "clusterroles",
  singular: "clusterrole",
  namespaced: false,
  nameValidator: nameIsPathSegment,
  strategy: {
    validate: (obj) => [
      ...validateRules(obj.rules, false),
      ...validateAggregationRule(obj.aggregationRule),
    ],
  },
};
