/**
 * REST paths of Kubernetes resources: `/api/v1/...` for the core group and
 * `/apis/{group}/{version}/...` for named groups.
 *
 * @module
 */

/** Identifies a resource collection, an object, or an object's subresource. */
export interface ResourceRef {
  /** API group; "" or absent for the core group. */
  group?: string;
  version: string;
  /** Plural resource name, e.g. `configmaps`. */
  resource: string;
  /** Namespace of namespaced resources; absent for cluster scope or all namespaces. */
  namespace?: string;
  name?: string;
  subresource?: string;
}

/** Builds the path of `ref`, percent-encoding each segment. */
export function resourcePath(ref: ResourceRef): string {
  const seg = (s: string) => encodeURIComponent(s);
  let path = ref.group ? `/apis/${seg(ref.group)}/${seg(ref.version)}` : `/api/${seg(ref.version)}`;
  if (ref.namespace) path += `/namespaces/${seg(ref.namespace)}`;
  path += `/${seg(ref.resource)}`;
  if (ref.name) path += `/${seg(ref.name)}`;
  if (ref.subresource) {
    if (!ref.name) throw new Error("a subresource needs a name");
    path += `/${seg(ref.subresource)}`;
  }
  return path;
}
