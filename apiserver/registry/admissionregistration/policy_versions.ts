/**
 * ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding at v1beta1 and v1alpha1,
 * served (when `--runtime-config` enables them) from the v1 objects, kube 1.32's storage
 * version: the fields are v1's, so the conversion changes the apiVersion only. v1alpha1 keeps
 * its own default of a binding's `paramRef.parameterNotFoundAction` (Deny).
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { isObject } from "../../../shared/json/is_object.ts";
import { type KindDef, STATUS_SUBRESOURCE } from "../generic/kind.ts";
import { sameFieldsVersion } from "../generic/same_fields_version.ts";
import { validatingAdmissionPolicyKind } from "./validatingadmissionpolicies/strategy.ts";
import { validatingAdmissionPolicyBindingKind } from "./validatingadmissionpolicybindings/strategy.ts";

/** SetDefaults_ParamRef of v1alpha1. */
function defaultParamRef(obj: KubeObject): void {
  const ref = isObject(obj.spec) ? obj.spec.paramRef : undefined;
  if (isObject(ref)) ref.parameterNotFoundAction ??= "Deny";
}

const policyAt = (version: string): KindDef => ({
  ...sameFieldsVersion(validatingAdmissionPolicyKind, version),
  subresources: [STATUS_SUBRESOURCE],
});

/** admissionregistration.k8s.io/v1beta1 ValidatingAdmissionPolicy (stored as v1). */
export const validatingAdmissionPolicyV1beta1Kind: KindDef = policyAt("v1beta1");
/** admissionregistration.k8s.io/v1alpha1 ValidatingAdmissionPolicy (stored as v1). */
export const validatingAdmissionPolicyV1alpha1Kind: KindDef = policyAt("v1alpha1");

/** admissionregistration.k8s.io/v1beta1 ValidatingAdmissionPolicyBinding (stored as v1). */
export const validatingAdmissionPolicyBindingV1beta1Kind: KindDef = sameFieldsVersion(
  validatingAdmissionPolicyBindingKind,
  "v1beta1",
);
/** admissionregistration.k8s.io/v1alpha1 ValidatingAdmissionPolicyBinding (stored as v1). */
export const validatingAdmissionPolicyBindingV1alpha1Kind: KindDef = sameFieldsVersion(
  validatingAdmissionPolicyBindingKind,
  "v1alpha1",
  { prepareForCreate: defaultParamRef, prepareForUpdate: defaultParamRef },
);
