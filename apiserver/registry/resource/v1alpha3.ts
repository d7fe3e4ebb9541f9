/**
 * resource.k8s.io/v1alpha3, served (when `--runtime-config` enables it) from the v1beta1
 * objects, kube 1.32's storage version. The versions differ in one field: a device's capacity
 * is a Quantity in v1alpha3 and a DeviceCapacity (`{value}`) in v1beta1; everything else
 * converts by its apiVersion alone.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { isObject } from "../../../shared/json/is_object.ts";
import type { KindDef } from "../generic/kind.ts";
import { sameFieldsVersion } from "../generic/same_fields_version.ts";
import { listOf, objectOf } from "../generic/table_columns.ts";
import { deviceClassKind } from "./deviceclasses/strategy.ts";
import { resourceClaimKind } from "./resourceclaims/strategy.ts";
import { resourceClaimTemplateKind } from "./resourceclaimtemplates/strategy.ts";
import { resourceSliceKind } from "./resourceslices/strategy.ts";

/** `obj` (cloned) at `apiVersion`, each device's capacity entries mapped by `entry`. */
function convertSlice(obj: KubeObject, apiVersion: string, entry: (v: unknown) => unknown) {
  const copy = structuredClone(obj);
  copy.apiVersion = apiVersion;
  for (const device of listOf(objectOf(copy.spec).devices)) {
    const capacity = isObject(device.basic) ? device.basic.capacity : undefined;
    if (!isObject(capacity)) continue;
    for (const [k, v] of Object.entries(capacity)) capacity[k] = entry(v);
  }
  return copy;
}

/** resource.k8s.io/v1alpha3 ResourceSlice (stored as v1beta1). */
export const resourceSliceV1alpha3Kind: KindDef = {
  ...sameFieldsVersion(resourceSliceKind, "v1alpha3"),
  servedFrom: {
    storage: resourceSliceKind,
    toStorage: (obj) => convertSlice(obj, "resource.k8s.io/v1beta1", (value) => ({ value })),
    fromStorage: (obj) =>
      convertSlice(obj, "resource.k8s.io/v1alpha3", (v) => isObject(v) ? v.value : v),
  },
};

/** resource.k8s.io/v1alpha3 DeviceClass (stored as v1beta1). */
export const deviceClassV1alpha3Kind: KindDef = sameFieldsVersion(deviceClassKind, "v1alpha3");

/** resource.k8s.io/v1alpha3 ResourceClaim (stored as v1beta1; its status subresource too). */
export const resourceClaimV1alpha3Kind: KindDef = sameFieldsVersion(resourceClaimKind, "v1alpha3");

/** resource.k8s.io/v1alpha3 ResourceClaimTemplate (stored as v1beta1). */
export const resourceClaimTemplateV1alpha3Kind: KindDef = sameFieldsVersion(
  resourceClaimTemplateKind,
  "v1alpha3",
);
