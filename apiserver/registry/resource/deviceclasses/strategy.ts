/**
 * DeviceClass (resource.k8s.io/v1beta1, kube 1.32's storage version; off by default): the
 * selectors and configuration a class of devices shares. Validation and columns as kube's.
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import type { KindDef } from "../../generic/kind.ts";
import { NAME_AGE_COLUMNS, objectOf } from "../../generic/table_columns.ts";
import { validateConfigs, validateSelectors } from "../device_validation.ts";

/** ValidateDeviceClass. */
function validate(o: KubeObject): FieldError[] {
  const spec = objectOf(o.spec);
  return [
    ...validateSelectors("spec.selectors", spec.selectors),
    ...validateConfigs("spec.config", spec.config),
  ];
}

/** The DeviceClass kind. */
export const deviceClassKind: KindDef = {
  group: "resource.k8s.io",
  version: "v1beta1",
  kind: "DeviceClass",
  plural: "deviceclasses",
  singular: "deviceclass",
  namespaced: false,
  strategy: { tableColumns: NAME_AGE_COLUMNS, validate },
};
