/**
 * autoscaling/v1 HorizontalPodAutoscaler, served from the autoscaling/v2 store: v1's own
 * defaults (minReplicas 1), the columns of the converted object, and the conversions.
 *
 * @module
 */
import { type KindDef, STATUS_SUBRESOURCE } from "../../generic/kind.ts";
import { horizontalPodAutoscalerKind, HPA_COLUMNS } from "./strategy.ts";
import { hpaV1ToV2, hpaV2ToV1 } from "./v1_conversion.ts";
import { objectOf } from "../../generic/table_columns.ts";

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
      cells: (o, now) => HPA_COLUMNS.cells(hpaV1ToV2(o), now),
    },
    prepareForCreate(obj) {
      const spec = objectOf(obj.spec);
      spec.minReplicas ??= 1;
      obj.spec = spec;
    },
    validate: () => [],
  },
};
