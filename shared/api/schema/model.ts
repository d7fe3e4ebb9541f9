/**
 * The schema model: one declaration of every built-in kind's fields (names, types, required
 * fields, defaults, enums, int-or-string, quantities and the merge markers of the spec), read by
 * field validation, the OpenAPI documents and patch/apply.
 *
 * @module
 */

/** A group, version and kind. */
export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** The list type merge marker (`x-kubernetes-list-type`). */
export type ListType = "atomic" | "set" | "map";

/** The map and struct type merge marker (`x-kubernetes-map-type`). */
export type MapType = "atomic" | "granular";

/**
 * The schema of one field (or of a list item or a map value).
 *
 * - `string`, `boolean`, `integer` (with `format` int32/int64), `number`: scalars; `format`
 *   `byte` is base64 text, `date-time` an RFC 3339 time;
 * - `intOrString`: an integer or a string; `quantity`: a resource quantity (string or number);
 * - `ref`: a named type of the model (`ref`);
 * - `array` with `items`; `map` (string keys) with `values`;
 * - `any`: any JSON value, kept as is.
 */
export interface FieldSchema {
  type:
    | "string"
    | "boolean"
    | "integer"
    | "number"
    | "intOrString"
    | "quantity"
    | "ref"
    | "array"
    | "map"
    | "any";
  format?: string;
  /** Model name of the type, for `ref`. */
  ref?: string;
  /** Item schema, for `array`. */
  items?: FieldSchema;
  /** Value schema, for `map`. */
  values?: FieldSchema;
  /** Allowed values of a string. */
  enum?: readonly string[];
  /** The value set when the field is absent. */
  default?: unknown;
  description?: string;
  listType?: ListType;
  /** Key fields of a `map` list. */
  listMapKeys?: readonly string[];
  mapType?: MapType;
  /** Strategic merge patch strategy, e.g. `merge` or `merge,retainKeys`. */
  patchStrategy?: string;
  /** Strategic merge patch key of a merged list. */
  patchMergeKey?: string;
}

/** A named type: an object with properties, or a named scalar (Time, Quantity, IntOrString). */
export interface TypeSchema {
  /** Model name, e.g. `core.v1.Pod`. */
  name: string;
  /** The OpenAPI definition name, e.g. `io.k8s.api.core.v1.Pod`. */
  openApiName: string;
  description?: string;
  /** Properties in declaration order (objects only). */
  properties: Readonly<Record<string, FieldSchema>>;
  required: readonly string[];
  /** Also required in the OpenAPI documents, but not checked by field validation. */
  documentedRequired?: readonly string[];
  /** The kinds this type is served as. */
  gvk?: readonly GroupVersionKind[];
  /** `x-kubernetes-map-type` of a struct. */
  structType?: MapType;
  /** Set for named scalars: the type is this field schema rather than an object. */
  scalar?: FieldSchema;
  /** Unknown fields are kept (RawExtension, FieldsV1). */
  preserveUnknownFields?: boolean;
}

/** The schema model: named types, and the kinds served from them. */
export class SchemaModel {
  readonly #types: ReadonlyMap<string, TypeSchema>;
  readonly #byKind = new Map<string, TypeSchema>();

  /** Creates a model over `types`, indexing every type that has a GVK. */
  constructor(types: Iterable<TypeSchema>) {
    const map = new Map<string, TypeSchema>();
    for (const t of types) {
      map.set(t.name, t);
      for (const g of t.gvk ?? []) this.#byKind.set(gvkKey(g), t);
    }
    this.#types = map;
  }

  /** The type called `name`, or undefined. */
  type(name: string): TypeSchema | undefined {
    return this.#types.get(name);
  }

  /** The type served as `group/version/kind`, or undefined. */
  kind(group: string, version: string, kind: string): TypeSchema | undefined {
    return this.#byKind.get(gvkKey({ group, version, kind }));
  }

  /** Every type. */
  types(): IterableIterator<TypeSchema> {
    return this.#types.values();
  }

  /** The named types `root` refers to, transitively, including itself. */
  closure(root: string): TypeSchema[] {
    const seen = new Map<string, TypeSchema>();
    const visit = (name: string) => {
      if (seen.has(name)) return;
      const t = this.#types.get(name);
      if (!t) return;
      seen.set(name, t);
      const walk = (f: FieldSchema | undefined) => {
        if (!f) return;
        if (f.ref) visit(f.ref);
        walk(f.items);
        walk(f.values);
      };
      for (const f of Object.values(t.properties)) walk(f);
    };
    visit(root);
    return [...seen.values()];
  }

  /** Resolves a field schema through a `ref` to a named scalar; objects stay `ref`. */
  resolve(f: FieldSchema): FieldSchema {
    if (f.type !== "ref" || !f.ref) return f;
    const t = this.#types.get(f.ref);
    return t?.scalar ? { ...t.scalar, description: f.description ?? t.scalar.description } : f;
  }
}

function gvkKey(g: GroupVersionKind): string {
  return `${g.group}/${g.version}/${g.kind}`;
}
