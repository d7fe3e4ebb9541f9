/**
 * ResourceClaimTemplate (resource.k8s.io/v1beta1, kube 1.32's storage version; off by
 * default): the claim a pod's resource claim is created from. Immutable spec; defaults and
 * validation of the claim inside, as kube's.
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import type { KindDef } from "../../generic/kind.ts";
import { NAME_AGE_COLUMNS, objectOf } from "../../generic/table_columns.ts";
import { defaultRequests, validateDeviceClaim } from "../device_validation.ts";
import { immutable } from "../resourceclaims/immutable.ts";

function setDefaults(o: KubeObject): void {
  defaultRequests(objectOf(objectOf(o.spec).spec).devices);
}

/** The ResourceClaimTemplate kind. */
export const resourceClaimTemplateKind: KindDef = {
  group: "resource.k8s.io",
  version: "v1beta1",
  kind: "ResourceClaimTemplate",
  plural: "resourceclaimtemplates",
  singular: "resourceclaimtemplate",
  namespaced: true,
  strategy: {
    tableColumns: NAME_AGE_COLUMNS,
    prepareForCreate: setDefaults,
    prepareForUpdate: setDefaults,
    validate: (o) =>
      validateDeviceClaim("spec.spec.devices", objectOf(objectOf(o.spec).spec).devices),
    validateUpdate: (o, old) => immutable("spec", o.spec, old.spec),
  },
};
