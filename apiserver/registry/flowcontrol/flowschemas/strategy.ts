/**
 * FlowSchema (flowcontrol.apiserver.k8s.io/v1), cluster-scoped, with a status subresource:
 * stored with Kubernetes' default (matchingPrecedence 1000) and validated as Kubernetes does.
 * Requests are not classified by it (API Priority and Fairness itself is not implemented).
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { type KindDef, STATUS_SUBRESOURCE, type TableColumns } from "../../generic/kind.ts";
import { AGE_COLUMN, ageOf, column, NAME_COLUMN } from "../../generic/table_columns.ts";
import { validateFlowSchema } from "../flow_schema_validation.ts";
import { listOf, objOf } from "../flowcontrol_fields.ts";

/** Kubernetes' SetDefaults_FlowSchemaSpec: matchingPrecedence 1000 when unset or zero. */
export function defaultFlowSchema(obj: KubeObject): void {
  const spec = objOf(obj.spec);
  obj.spec = spec;
  if (!spec.matchingPrecedence) spec.matchingPrecedence = 1000;
}

function precedence(o: KubeObject): number {
  const p = objOf(o.spec).matchingPrecedence;
  return typeof p === "number" ? p : 0;
}

const FLOW_SCHEMA_COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    column("PriorityLevel", "string", "The priority level configuration this schema refers to."),
    column("MatchingPrecedence", "string", "Lower values match first; 1 to 10000."),
    column("DistinguisherMethod", "string", "How flows of this schema are told apart."),
    AGE_COLUMN,
    column(
      "MissingPL",
      "string",
      "references a broken or non-existent PriorityLevelConfiguration",
    ),
  ],
  cells: (o, now) => {
    const spec = objOf(o.spec);
    const method = objOf(spec.distinguisherMethod).type;
    const dangling = listOf(objOf(o.status).conditions).find((c) => c.type === "Dangling");
    return [
      o.metadata?.name ?? "",
      String(objOf(spec.priorityLevelConfiguration).name ?? ""),
      precedence(o),
      spec.distinguisherMethod ? String(method ?? "") : "<none>",
      ageOf(o, now),
      dangling ? String(dangling.status ?? "") : "?",
    ];
  },
  compare: (a, b) =>
    precedence(a) - precedence(b) ||
    (a.metadata.name ?? "").localeCompare(b.metadata.name ?? "", "en"),
};

/** The FlowSchema kind. */
export const flowSchemaKind: KindDef = {
  group: "flowcontrol.apiserver.k8s.io",
  version: "v1",
  kind: "FlowSchema",
  plural: "flowschemas",
  singular: "flowschema",
  namespaced: false,
  subresources: [STATUS_SUBRESOURCE],
  strategy: {
    tableColumns: FLOW_SCHEMA_COLUMNS,
    prepareForCreate(obj) {
      defaultFlowSchema(obj);
      obj.status = {};
    },
    prepareForUpdate: defaultFlowSchema,
    validate: validateFlowSchema,
  },
};
