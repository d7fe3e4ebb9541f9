/**
 * PriorityLevelConfiguration (flowcontrol.apiserver.k8s.io/v1), cluster-scoped, with a status
 * subresource: stored with Kubernetes' v1 defaults and validated as Kubernetes does. No request
 * is limited by it (API Priority and Fairness itself is not implemented).
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import { type KindDef, STATUS_SUBRESOURCE, type TableColumns } from "../../generic/kind.ts";
import { AGE_COLUMN, ageOf, column, NAME_COLUMN } from "../../generic/table_columns.ts";
import { objOf } from "../flowcontrol_fields.ts";
import { validatePriorityLevel } from "../priority_level_validation.ts";

function unset(v: unknown): boolean {
  return v === undefined || v === null;
}

/**
 * Kubernetes' v1 defaults: a limited level's nominalConcurrencyShares 30 when unset (0 is
 * kept) and lendablePercent 0; queuing 64 queues, hand size 8, queue length limit 50 for zero
 * values; an exempt section's shares and lendablePercent 0.
 */
export function defaultPriorityLevel(obj: KubeObject): void {
  const spec = objOf(obj.spec);
  obj.spec = spec;
  if (isObject(spec.limited)) {
    const l = spec.limited;
    if (unset(l.nominalConcurrencyShares)) l.nominalConcurrencyShares = 30;
    if (unset(l.lendablePercent)) l.lendablePercent = 0;
    const q = objOf(l.limitResponse).queuing;
    if (isObject(q)) {
      if (!q.queues) q.queues = 64;
      if (!q.handSize) q.handSize = 8;
      if (!q.queueLengthLimit) q.queueLengthLimit = 50;
    }
  }
  if (isObject(spec.exempt)) {
    if (unset(spec.exempt.nominalConcurrencyShares)) spec.exempt.nominalConcurrencyShares = 0;
    if (unset(spec.exempt.lendablePercent)) spec.exempt.lendablePercent = 0;
  }
}

const PRIORITY_LEVEL_COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    column("Type", "string", '"Exempt" or "Limited".'),
    column("NominalConcurrencyShares", "string", "The level's share of the server's concurrency."),
    column("Queues", "string", "The number of queues."),
    column("HandSize", "string", "The shuffle-sharding hand size."),
    column("QueueLengthLimit", "string", "Requests allowed to wait in one queue."),
    AGE_COLUMN,
  ],
  cells: (o, now) => {
    const spec = objOf(o.spec);
    const limited = isObject(spec.limited) ? spec.limited : undefined;
    const q = limited ? objOf(limited.limitResponse).queuing : undefined;
    const cell = (v: unknown) => (v === undefined ? "<none>" : v);
    return [
      o.metadata?.name ?? "",
      String(spec.type ?? ""),
      limited ? cell(limited.nominalConcurrencyShares) : "<none>",
      isObject(q) ? cell(q.queues) : "<none>",
      isObject(q) ? cell(q.handSize) : "<none>",
      isObject(q) ? cell(q.queueLengthLimit) : "<none>",
      ageOf(o, now),
    ];
  },
};

/** The PriorityLevelConfiguration kind. */
export const priorityLevelConfigurationKind: KindDef = {
  group: "flowcontrol.apiserver.k8s.io",
  version: "v1",
  kind: "PriorityLevelConfiguration",
  plural: "prioritylevelconfigurations",
  singular: "prioritylevelconfiguration",
  namespaced: false,
  subresources: [STATUS_SUBRESOURCE],
  strategy: {
    tableColumns: PRIORITY_LEVEL_COLUMNS,
    prepareForCreate(obj) {
      defaultPriorityLevel(obj);
      obj.status = {};
    },
    prepareForUpdate: defaultPriorityLevel,
    validate: validatePriorityLevel,
  },
};
