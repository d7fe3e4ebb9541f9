/**
 * PersistentVolumeClaimResize, as kube's plugin: a claim's storage request may grow only when
 * the claim is bound and its StorageClass (the same before and after) allows volume expansion.
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { tryParseQuantity } from "../../shared/api/quantity.ts";
import { StatusError } from "../../shared/errors/status_error.ts";
import { isObject } from "../../shared/json/is_object.ts";
import type { AdmissionPlugin } from "../registry/generic/admission.ts";
import type { Store } from "../registry/generic/store.ts";

const BETA_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class";
const PVCS = { group: "", resource: "persistentvolumeclaims" };

/** The storage request of a claim, parsed (absent or invalid: undefined). */
function storageRequest(pvc: KubeObject): ReturnType<typeof tryParseQuantity> {
  const spec = isObject(pvc.spec) ? pvc.spec : {};
  const resources = isObject(spec.resources) ? spec.resources : {};
  const requests = isObject(resources.requests) ? resources.requests : {};
  return typeof requests.storage === "string" ? tryParseQuantity(requests.storage) : undefined;
}

/** The claim's class: the beta annotation first, then spec.storageClassName (kube's helper). */
function classOf(pvc: KubeObject): string {
  const annotated = pvc.metadata.annotations?.[BETA_CLASS_ANNOTATION];
  if (annotated !== undefined) return annotated;
  const spec = isObject(pvc.spec) ? pvc.spec : {};
  return typeof spec.storageClassName === "string" ? spec.storageClassName : "";
}

/** Builds the plugin; `storageClasses` is the StorageClass store. */
export function persistentVolumeClaimResize(
  storageClasses: () => Store | undefined,
): AdmissionPlugin {
  const allowed = async (pvc: KubeObject, old: KubeObject): Promise<boolean> => {
    const [now, before] = [classOf(pvc), classOf(old)];
    if (!now || !before || now !== before) return false;
    const sc = await storageClasses()?.get("", now).catch(() => undefined);
    return sc?.allowVolumeExpansion === true;
  };
  return {
    name: "PersistentVolumeClaimResize",
    async validate(a) {
      if (a.kind.group !== "" || a.kind.plural !== "persistentvolumeclaims") return;
      if (a.subresource || a.operation !== "UPDATE" || !a.object || !a.oldObject) return;
      const [size, oldSize] = [storageRequest(a.object), storageRequest(a.oldObject)];
      if (!size || (oldSize && size.compareTo(oldSize) <= 0)) return;
      const phase = isObject(a.oldObject.status) ? a.oldObject.status.phase : undefined;
      if (phase !== "Bound") {
        throw StatusError.forbidden(
          PVCS,
          a.name,
          "Only bound persistent volume claims can be expanded",
        );
      }
      if (!(await allowed(a.object, a.oldObject))) {
        throw StatusError.forbidden(
          PVCS,
          a.name,
          "only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize",
        );
      }
    },
  };
}
