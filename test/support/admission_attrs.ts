/**
 * Admission attributes for unit tests of admission plugins and the chain.
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import type { AdmissionAttributes } from "../../apiserver/registry/generic/admission.ts";
import type { KindDef } from "../../apiserver/registry/generic/kind.ts";

/** Attributes of a core/v1 request on `plural`. */
export function attrs(
  plural: string,
  operation: AdmissionAttributes["operation"],
  object?: KubeObject,
  extra: Partial<AdmissionAttributes> = {},
): AdmissionAttributes {
  const kind = { group: "", version: "v1", plural, kind: plural, namespaced: true } as KindDef;
  return {
    operation,
    kind,
    namespace: "ns",
    name: object?.metadata.name ?? "x",
    subresource: "",
    object,
    dryRun: false,
    ...extra,
  };
}
