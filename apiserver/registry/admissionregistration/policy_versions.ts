/**
 * ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding at v1beta1, served (when
 * `--runtime-config` enables it) from the v1 objects, kube 1.32's storage version: the fields
 * are v1's, so the conversion changes the apiVersion only. kube 1.32 deprecates v1beta1 (it
 * goes in 1.34) and no longer serves their v1alpha1 (removed in 1.32), which this server then
 * does not have either.
 *
 * @module
 */
import type { KindDef } from "../generic/kind.ts";
import { sameFieldsVersion } from "../generic/same_fields_version.ts";
import { validatingAdmissionPolicyKind } from "./validatingadmissionpolicies/strategy.ts";
import { validatingAdmissionPolicyBindingKind } from "./validatingadmissionpolicybindings/strategy.ts";

/** kube's warning for a v1beta1 kind (its prerelease lifecycle: deprecated 1.31, removed 1.34). */
function deprecated(kind: string): Pick<KindDef, "deprecationWarning" | "removedRelease"> {
  return {
    deprecationWarning:
      `admissionregistration.k8s.io/v1beta1 ${kind} is deprecated in v1.31+, unavailable in v1.34+`,
    removedRelease: "1.34",
  };
}

/** admissionregistration.k8s.io/v1beta1 ValidatingAdmissionPolicy (stored as v1). */
export const validatingAdmissionPolicyV1beta1Kind: KindDef = {
  ...sameFieldsVersion(validatingAdmissionPolicyKind, "v1beta1"),
  ...deprecated("ValidatingAdmissionPolicy"),
};

/** admissionregistration.k8s.io/v1beta1 ValidatingAdmissionPolicyBinding (stored as v1). */
export const validatingAdmissionPolicyBindingV1beta1Kind: KindDef = {
  ...sameFieldsVersion(validatingAdmissionPolicyBindingKind, "v1beta1"),
  ...deprecated("ValidatingAdmissionPolicyBinding"),
};
