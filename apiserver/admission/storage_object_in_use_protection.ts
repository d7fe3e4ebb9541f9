/**
 * StorageObjectInUseProtection, as kube's plugin: a new PersistentVolumeClaim gets the
 * `kubernetes.io/pvc-protection` finalizer and a new PersistentVolume the
 * `kubernetes.io/pv-protection` one, so neither is removed while in use (the storage
 * protection controller removes them once it is not).
 *
 * @module
 */
import type { AdmissionPlugin } from "../registry/generic/admission.ts";

/** The finalizer of PersistentVolumeClaims. */
export const PVC_PROTECTION_FINALIZER = "kubernetes.io/pvc-protection";
/** The finalizer of PersistentVolumes. */
export const PV_PROTECTION_FINALIZER = "kubernetes.io/pv-protection";

/** Builds the plugin. */
export function storageObjectInUseProtection(): AdmissionPlugin {
  return {
    name: "StorageObjectInUseProtection",
    admit(a) {
      if (a.operation !== "CREATE" || a.subresource || a.kind.group !== "" || !a.object) return;
      const finalizer = a.kind.plural === "persistentvolumeclaims"
        ? PVC_PROTECTION_FINALIZER
        : a.kind.plural === "persistentvolumes"
        ? PV_PROTECTION_FINALIZER
        : undefined;
      if (!finalizer) return;
      const meta = a.object.metadata;
      const finalizers = meta.finalizers ?? [];
      if (!finalizers.includes(finalizer)) meta.finalizers = [...finalizers, finalizer];
    },
  };
}
