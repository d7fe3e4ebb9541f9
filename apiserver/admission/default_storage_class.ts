/**
 * DefaultStorageClass admission, as Kubernetes' plugin of that name: a new
 * PersistentVolumeClaim that names no storage class (no `spec.storageClassName`, no beta
 * annotation) gets the default StorageClass, the newest one when several are marked default.
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { isObject } from "../../shared/json/is_object.ts";
import type { AdmissionPlugin } from "../registry/generic/admission.ts";
import type { Store } from "../registry/generic/store.ts";
import { isDefaultClass } from "../registry/storage/storageclasses/strategy.ts";

const BETA_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class";

/** The default class: the newest marked default, by name when created in the same second. */
function pickDefault(classes: KubeObject[]): KubeObject | undefined {
  const defaults = classes.filter(isDefaultClass);
  defaults.sort((a, b) => {
    const ta = String(a.metadata.creationTimestamp ?? "");
    const tb = String(b.metadata.creationTimestamp ?? "");
    if (ta !== tb) return ta < tb ? 1 : -1;
    return (a.metadata.name ?? "") < (b.metadata.name ?? "") ? -1 : 1;
  });
  return defaults[0];
}

/** Builds the plugin; `storageClasses` is the StorageClass store. */
export function defaultStorageClass(storageClasses: () => Store | undefined): AdmissionPlugin {
  return {
    name: "DefaultStorageClass",
    async admit(a) {
      if (a.operation !== "CREATE" || a.subresource || a.kind.group !== "") return;
      if (a.kind.kind !== "PersistentVolumeClaim" || !a.object) return;
      const store = storageClasses();
      const spec = a.object.spec;
      if (!store || !isObject(spec) || spec.storageClassName !== undefined) return;
      if (a.object.metadata.annotations?.[BETA_CLASS_ANNOTATION] !== undefined) return;
      const list = await store.list("", { plan: { mode: "latest" } });
      const found = pickDefault(list.items);
      if (found) spec.storageClassName = found.metadata.name;
    },
  };
}
