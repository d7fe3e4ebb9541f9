/**
 * The OpenAPI schemas of a custom resource's version, as apiextensions-apiserver's OpenAPI
 * builder publishes them: the structural schema (value validations, and for v2 also nullable,
 * anyOf/allOf/oneOf/not and what v2 cannot say, stripped), with apiVersion, kind and an
 * ObjectMeta `metadata` at the root and in embedded resources, `x-kubernetes-group-version-kind`,
 * and the List type. Definitions are named `<reversed group>.<version>.<Kind>`.
 *
 * @module
 */
import type { JSONSchemaProps } from "../../shared/api/apiextensions/v1/types.ts";
import type { Json } from "./type_to_openapi.ts";

const META = "io.k8s.apimachinery.pkg.apis.meta.v1";
const CONVENTIONS =
  "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md";
const OBJECT_META_DESCRIPTION = `Standard object's metadata. More info: ${CONVENTIONS}#metadata`;
const LIST_META_DESCRIPTION = `Standard list metadata. More info: ${CONVENTIONS}#metadata`;
const API_VERSION_DESCRIPTION =
  "APIVersion defines the versioned schema of this representation of an object. Servers should " +
  "convert recognized schemas to the latest internal value, and may reject unrecognized values. " +
  `More info: ${CONVENTIONS}#resources`;
const KIND_DESCRIPTION =
  "Kind is a string value representing the REST resource this object represents. Servers may " +
  "infer this from the endpoint the client submits requests to. Cannot be updated. In " +
  `CamelCase. More info: ${CONVENTIONS}#types-kinds`;
const EMBEDDED_API_VERSION =
  "apiVersion defines the versioned schema of this representation of an object. More info: " +
  `${CONVENTIONS}#resources`;
const EMBEDDED_KIND =
  "kind is a string value representing the type of this object. In CamelCase. More info: " +
  `${CONVENTIONS}#types-kinds`;

/** The value validations of a structural schema node, in kube's field order. */
const VALUE_VALIDATIONS = [
  "format",
  "maximum",
  "exclusiveMaximum",
  "minimum",
  "exclusiveMinimum",
  "maxLength",
  "minLength",
  "pattern",
  "maxItems",
  "minItems",
  "uniqueItems",
  "multipleOf",
  "enum",
  "maxProperties",
  "minProperties",
  "required",
] as const;

const EXTENSIONS = [
  "x-kubernetes-preserve-unknown-fields",
  "x-kubernetes-embedded-resource",
  "x-kubernetes-int-or-string",
  "x-kubernetes-list-map-keys",
  "x-kubernetes-list-type",
  "x-kubernetes-map-type",
  "x-kubernetes-validations",
] as const;

/** The definition name of a custom resource kind: `com.example.stable.v1.CronTab`. */
export function customResourceDefinitionName(group: string, version: string, kind: string): string {
  return `${group.split(".").reverse().join(".")}.${version}.${kind}`;
}

function ref(name: string, description: string): Json {
  return { allOf: [{ $ref: `#/components/schemas/${name}` }], description };
}

function sortedProperties(props: Record<string, Json>): Record<string, Json> {
  return Object.fromEntries(Object.entries(props).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** One schema node (structural parts only), v2 stripped of what it cannot say. */
function node(s: JSONSchemaProps, v2: boolean): Json {
  const out: Json = {};
  const preserve = s["x-kubernetes-preserve-unknown-fields"] === true;
  // v2 strips nullable first (StripNullable), then what a preserving node cannot say.
  let type = s.type;
  if (v2 && preserve && type === "object") type = undefined;
  const dropChildren = v2 && preserve;
  if (s.description !== undefined) out.description = s.description;
  if (type) out.type = type;
  if (!v2 && s.nullable) out.nullable = true;
  if (s.title !== undefined) out.title = s.title;
  if (s.default !== undefined) out.default = s.default;
  const items = Array.isArray(s.items) ? undefined : s.items;
  if (items && !dropChildren) out.items = node(items, v2);
  else if (v2 && type === "array") delete out.type;
  if (s.properties && !dropChildren) {
    out.properties = sortedProperties(
      Object.fromEntries(Object.entries(s.properties).map(([k, p]) => [k, node(p, v2)])),
    );
  }
  const ap = s.additionalProperties;
  if (typeof ap === "object") out.additionalProperties = node(ap, v2);
  else if (ap === true) out.additionalProperties = true;
  if (!v2) addValueValidations(s, out);
  for (const x of EXTENSIONS) if (s[x] !== undefined && s[x] !== false) out[x] = s[x];
  return out;
}

/** v3 keeps the value validations (and unfolds int-or-string into its anyOf). */
function addValueValidations(s: JSONSchemaProps, out: Json): void {
  for (const k of VALUE_VALIDATIONS) {
    const v = s[k];
    if (v === undefined || v === false || (Array.isArray(v) && v.length === 0)) continue;
    out[k] = v;
  }
  for (const k of ["allOf", "anyOf", "oneOf"] as const) {
    if (s[k] && s[k]!.length > 0) out[k] = s[k]!.map((x) => node(x, false));
  }
  if (s.not) out.not = node(s.not, false);
  if (s["x-kubernetes-int-or-string"] && !s.anyOf && !s.allOf) {
    out.anyOf = [{ type: "integer" }, { type: "string" }];
  }
}

/** Adds apiVersion, kind and metadata to embedded resources (not v2 nodes preserving fields). */
function addEmbeddedProperties(s: Json, v2: boolean): void {
  for (const p of Object.values((s.properties ?? {}) as Record<string, Json>)) {
    addEmbeddedProperties(p, v2);
  }
  if (s.items && typeof s.items === "object") addEmbeddedProperties(s.items as Json, v2);
  if (s.additionalProperties && typeof s.additionalProperties === "object") {
    addEmbeddedProperties(s.additionalProperties as Json, v2);
  }
  if (v2 && s["x-kubernetes-preserve-unknown-fields"] === true) return;
  if (s["x-kubernetes-embedded-resource"] !== true) return;
  s.properties = sortedProperties({
    ...(s.properties as Record<string, Json> ?? {}),
    apiVersion: { description: EMBEDDED_API_VERSION, type: "string" },
    kind: { description: EMBEDDED_KIND, type: "string" },
    metadata: ref(`${META}.ObjectMeta`, OBJECT_META_DESCRIPTION),
  });
  const required = [...(s.required as string[] | undefined ?? [])];
  for (const r of ["kind", "apiVersion"]) if (!required.includes(r)) required.push(r);
  s.required = required;
}

/** The group, version, kind and names of a custom resource version. */
export interface CustomResourceNames {
  group: string;
  version: string;
  kind: string;
  plural: string;
  listKind?: string;
  /** The version's selectable fields (`spec.color`), as its strategy names them. */
  strategy?: { selectableFieldNames?: readonly string[] };
}

/** `x-kubernetes-selectable-fields`: every CRD version has it, empty when it selects none. */
function selectableFields(names: CustomResourceNames): Json[] {
  return (names.strategy?.selectableFieldNames ?? []).map((f) => ({
    fieldPath: f.replace(/^\./, ""),
  }));
}

/** The object schema of a custom resource version (buildKubeNative). */
export function customResourceSchema(
  names: CustomResourceNames,
  schema: JSONSchemaProps | undefined,
  v2: boolean,
): Json {
  const gvk = [{ group: names.group, kind: names.kind, version: names.version }];
  if (!schema || (v2 && schema["x-kubernetes-preserve-unknown-fields"] === true)) {
    return {
      type: "object",
      "x-kubernetes-group-version-kind": gvk,
      "x-kubernetes-selectable-fields": selectableFields(names),
    };
  }
  const out = node(schema, v2);
  out.properties = sortedProperties({
    ...(out.properties as Record<string, Json> ?? {}),
    apiVersion: { description: API_VERSION_DESCRIPTION, type: "string" },
    kind: { description: KIND_DESCRIPTION, type: "string" },
    metadata: ref(`${META}.ObjectMeta`, OBJECT_META_DESCRIPTION),
  });
  addEmbeddedProperties(out, v2);
  out["x-kubernetes-group-version-kind"] = gvk;
  out["x-kubernetes-selectable-fields"] = selectableFields(names);
  return out;
}

/** The List schema of a custom resource version (buildListSchema). */
export function customResourceListSchema(names: CustomResourceNames): Json {
  const listKind = names.listKind ?? `${names.kind}List`;
  const item = customResourceDefinitionName(names.group, names.version, names.kind);
  return {
    description: `${listKind} is a list of ${names.kind}`,
    type: "object",
    required: ["items"],
    properties: {
      apiVersion: { description: API_VERSION_DESCRIPTION, type: "string" },
      items: {
        description: `List of ${names.plural}. More info: ${CONVENTIONS}`,
        type: "array",
        items: { $ref: `#/components/schemas/${item}` },
      },
      kind: { description: KIND_DESCRIPTION, type: "string" },
      metadata: ref(`${META}.ListMeta`, LIST_META_DESCRIPTION),
    },
    "x-kubernetes-group-version-kind": [
      { group: names.group, kind: listKind, version: names.version },
    ],
    "x-kubernetes-selectable-fields": selectableFields(names),
  };
}
