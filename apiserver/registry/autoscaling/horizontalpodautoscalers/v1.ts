/**
 * autoscaling/v1 HorizontalPodAutoscaler, served from the autoscaling/v2 store: v1's own
 * defaults (minReplicas 1), the columns of the converted object, and the conversions.
 *
 * @module
 */
import { type KindDef, STATUS_SUBRESOURCE } from "../../generic/kind.ts";
import { horizontalPodAutoscalerKind, HPA_COLUMNS } from "./strategy.ts";
import { hpaV1ToV2, hpaV2ToV1 } from "./v1_conversion.ts";
import { listOf, objectOf } from "../../generic/table_columns.ts";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";

/**
 * The v2 form of a v1 object for its Table row: v1 does not say where the CPU utilization
 * target stood among the metrics; it is shown first (where `kubectl autoscale` puts it).
 */
function cpuFirst(obj: KubeObject): KubeObject {
  const spec = objectOf(obj.spec);
  const metrics = listOf(spec.metrics);
  const isCpu = (m: Record<string, unknown>) =>
    m.type === "Resource" && objectOf(m.resource).name === "cpu";
  spec.metrics = [...metrics.filter(isCpu), ...metrics.filter((m) => !isCpu(m))];
  return obj;
}

/** SetDefaults_HorizontalPodAutoscaler of autoscaling/v1: minReplicas 1. */
function setHpaV1Defaults(obj: KubeObject): void {
  const spec = objectOf(obj.spec);
  spec.minReplicas ??= 1;
  obj.spec = spec;
}

/** autoscaling/v1 HorizontalPodAutoscaler (stored as autoscaling/v2). */
export const horizontalPodAutoscalerV1Kind: KindDef = {
  ...horizontalPodAutoscalerKind,
  version: "v1",
  subresources: [STATUS_SUBRESOURCE],
  servedFrom: {
    storage: horizontalPodAutoscalerKind,
    toStorage: hpaV1ToV2,
    fromStorage: hpaV2ToV1,
  },
  strategy: {
    tableColumns: {
      columns: HPA_COLUMNS.columns,
      cells: (o, now) => HPA_COLUMNS.cells(cpuFirst(hpaV1ToV2(o)), now),
    },
    prepareForCreate: setHpaV1Defaults,
    prepareForUpdate: setHpaV1Defaults,
    validate: () => [],
  },
};
