/**
 * Pruning (apiextensions pruning/algorithm.go): removes the fields a structural schema does
 * not declare, except under `x-kubernetes-preserve-unknown-fields`, keeping `apiVersion`,
 * `kind` and `metadata` of the root and of embedded resources (whose metadata keeps only
 * ObjectMeta's fields). Returns the removed fields' paths as Kubernetes reports them for
 * `fieldValidation` (`spec.foo`, `spec.list[0].bar`).
 *
 * @module
 */
import type { JSONSchemaProps } from "../../../../shared/api/apiextensions/v1/types.ts";
import { additionalOf, isObject, itemsOf } from "./schema_nodes.ts";

const META_FIELDS = new Set(["apiVersion", "kind", "metadata"]);

/** ObjectMeta's fields: anything else in an embedded resource's metadata is dropped. */
const OBJECT_META_FIELDS = new Set([
  "name",
  "generateName",
  "namespace",
  "selfLink",
  "uid",
  "resourceVersion",
  "generation",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "labels",
  "annotations",
  "ownerReferences",
  "finalizers",
  "managedFields",
]);

/** Drops the unknown fields of an embedded resource's metadata (kube's objectmeta.Coerce). */
function pruneEmbeddedMeta(x: Record<string, unknown>, at: string, out: string[]): void {
  const meta = x.metadata;
  if (!isObject(meta)) return;
  for (const k of Object.keys(meta)) {
    if (OBJECT_META_FIELDS.has(k)) continue;
    out.push(join(join(at, "metadata"), k));
    delete meta[k];
  }
}

function join(parent: string, key: string): string {
  return parent === "" ? key : `${parent}.${key}`;
}

/** Prunes `obj` in place; `root` keeps apiVersion/kind/metadata at the top. */
export function pruneValue(
  obj: unknown,
  schema: JSONSchemaProps | undefined,
  root: boolean,
): string[] {
  const pruned: string[] = [];
  const s = root && schema ? { ...schema, "x-kubernetes-embedded-resource": true } : schema;
  prune(obj, s, "", pruned, root);
  return pruned;
}

function prune(
  x: unknown,
  s: JSONSchemaProps | undefined,
  at: string,
  out: string[],
  root = false,
): void {
  if (!root && isObject(x) && s?.["x-kubernetes-embedded-resource"]) pruneEmbeddedMeta(x, at, out);
  if (s?.["x-kubernetes-preserve-unknown-fields"] === true) return skipPrune(x, s, at, out);
  if (Array.isArray(x)) {
    const items = itemsOf(s);
    x.forEach((v, i) => prune(v, items, `${at}[${i}]`, out));
    return;
  }
  if (!isObject(x)) return;
  const props = s?.properties ?? {};
  const ap = additionalOf(s);
  const embedded = s?.["x-kubernetes-embedded-resource"] === true;
  for (const k of Object.keys(x)) {
    if (embedded && META_FIELDS.has(k)) continue;
    const prop = s && Object.hasOwn(props, k) ? props[k] : undefined;
    if (prop) prune(x[k], prop, join(at, k), out);
    else if (s && (ap || s.additionalProperties === true)) prune(x[k], ap, join(at, k), out);
    else {
      if (!META_FIELDS.has(k) || at !== "") out.push(join(at, k));
      delete x[k];
    }
  }
}

function skipPrune(x: unknown, s: JSONSchemaProps, at: string, out: string[]): void {
  if (Array.isArray(x)) {
    const items = itemsOf(s);
    if (items) x.forEach((v, i) => skipPrune(v, items, `${at}[${i}]`, out));
    return;
  }
  if (!isObject(x)) return;
  const props = s.properties ?? {};
  const ap = additionalOf(s);
  const embedded = s["x-kubernetes-embedded-resource"] === true;
  for (const k of Object.keys(x)) {
    if (embedded && META_FIELDS.has(k)) continue;
    if (Object.hasOwn(props, k)) prune(x[k], props[k], join(at, k), out);
    else if (ap) prune(x[k], ap, join(at, k), out);
  }
}
