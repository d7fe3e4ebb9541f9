/**
 * A kind served at another version whose fields are those of its stored version (kube's alpha
 * and beta versions of a kind that graduated without changes, e.g. admissionregistration
 * v1beta1 ValidatingAdmissionPolicy stored as v1): the conversion rewrites the apiVersion only,
 * so every field round-trips as it is.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { apiVersionOf, type KindDef } from "./kind.ts";

/** `obj` (cloned) at `apiVersion`. */
function withApiVersion(obj: KubeObject, apiVersion: string): KubeObject {
  const copy = structuredClone(obj);
  copy.apiVersion = apiVersion;
  return copy;
}

/**
 * `stored` served at `version`, from `stored`'s objects: the stored kind's strategy defaults
 * and validates, and its Table columns are the served version's too.
 */
export function sameFieldsVersion(stored: KindDef, version: string): KindDef {
  const from = apiVersionOf(stored), to = apiVersionOf({ group: stored.group, version });
  return {
    ...stored,
    version,
    servedFrom: {
      storage: stored,
      toStorage: (obj) => withApiVersion(obj, from),
      fromStorage: (obj) => withApiVersion(obj, to),
    },
    strategy: { tableColumns: stored.strategy.tableColumns, validate: () => [] },
  };
}
