/**
 * DefaultIngressClass admission: an Ingress created without `spec.ingressClassName` (and
 * without the older `kubernetes.io/ingress.class` annotation) gets the IngressClass annotated
 * `ingressclass.kubernetes.io/is-default-class: "true"`. More than one default class is an
 * error, as in Kubernetes 1.32.
 *
 * @module
 */
import { StatusError } from "../../shared/errors/status_error.ts";
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { isObject } from "../../shared/json/is_object.ts";
import type { AdmissionAttributes, AdmissionPlugin } from "../registry/generic/admission.ts";
import type { Store } from "../registry/generic/store.ts";
import { INGRESS_CLASS_ANNOTATION } from "../registry/networking/ingresses/validation.ts";
import { DEFAULT_INGRESS_CLASS_ANNOTATION } from "../registry/networking/ingressclasses/strategy.ts";

/** Builds the plugin; `ingressClasses` is the IngressClass store (absent: nothing to do). */
export function defaultIngressClass(ingressClasses: () => Store | undefined): AdmissionPlugin {
  return {
    name: "DefaultIngressClass",
    async admit(a: AdmissionAttributes): Promise<void> {
      if (a.operation !== "CREATE" || a.subresource !== "") return;
      if (a.kind.group !== "networking.k8s.io" || a.kind.plural !== "ingresses") return;
      const ingress = a.object;
      if (!ingress) return;
      const spec = isObject(ingress.spec) ? ingress.spec : {};
      if (typeof spec.ingressClassName === "string") return;
      if (ingress.metadata.annotations?.[INGRESS_CLASS_ANNOTATION] !== undefined) return;
      const store = ingressClasses();
      if (!store) return;
      const classes = (await store.list("", { plan: { mode: "latest" } })).items as KubeObject[];
      const defaults = classes.filter((c) =>
        c.metadata.annotations?.[DEFAULT_INGRESS_CLASS_ANNOTATION] === "true"
      );
      if (defaults.length === 0) return;
      if (defaults.length > 1) {
        throw StatusError.forbidden(
          { group: "networking.k8s.io", resource: "ingresses" },
          ingress.metadata.name ?? "",
          `Internal error occurred: ${defaults.length} default IngressClasses were found, only 1 allowed`,
        );
      }
      ingress.spec = { ingressClassName: defaults[0].metadata.name, ...spec };
    },
  };
}
