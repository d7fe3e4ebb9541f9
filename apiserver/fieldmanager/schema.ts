/**
 * The schema field ownership works on, in structured-merge-diff's shape: named types that are a
 * scalar, a list (atomic or associative, with keys for a map list and without for a set) or a
 * map (struct fields and/or an element type; separable or atomic). A type reference either
 * names a type or inlines one, and may override the element relationship.
 *
 * Two types always exist: `__untyped_atomic_` (any value, owned as a whole) and
 * `__untyped_deduced_` (maps are granular, lists atomic: the schema of unknown kinds).
 *
 * @module
 */

/** How the items of a list or map are owned. */
export type ElementRelationship = "atomic" | "associative" | "separable";

/** A scalar type. */
export type ScalarType = "numeric" | "string" | "boolean" | "untyped";

/** A list type. */
export interface ListType {
  elementType: TypeRef;
  /** Defaults to atomic. */
  elementRelationship?: ElementRelationship;
  /** Key fields of an associative list of maps (absent for a set). */
  keys?: readonly string[];
}

/** A field of a struct. */
export interface StructField {
  name: string;
  type: TypeRef;
  /** The value a missing key field takes when identifying a list item. */
  default?: unknown;
}

/** A map or struct type. */
export interface MapType {
  fields?: readonly StructField[];
  /** The type of members that are not fields. */
  elementType?: TypeRef;
  /** Defaults to separable (granular). */
  elementRelationship?: ElementRelationship;
}

/** One of scalar, list, map (a deduced type may have all three). */
export interface Atom {
  scalar?: ScalarType;
  list?: ListType;
  map?: MapType;
}

/** A reference to a named type, or an inline type. */
export interface TypeRef extends Atom {
  namedType?: string;
  /** Overrides the element relationship of the referenced map or list. */
  elementRelationship?: ElementRelationship;
}

/** A named type. */
export interface NamedType extends Atom {
  name: string;
}

/** The name of the type that owns any value as a whole. */
export const UNTYPED_ATOMIC = "__untyped_atomic_";
/** The name of the type deduced from values (granular maps, atomic lists). */
export const UNTYPED_DEDUCED = "__untyped_deduced_";

const BUILTIN_TYPES: NamedType[] = [
  {
    name: UNTYPED_ATOMIC,
    scalar: "untyped",
    list: { elementType: { namedType: UNTYPED_ATOMIC }, elementRelationship: "atomic" },
    map: { elementType: { namedType: UNTYPED_ATOMIC }, elementRelationship: "atomic" },
  },
  {
    name: UNTYPED_DEDUCED,
    scalar: "untyped",
    list: { elementType: { namedType: UNTYPED_ATOMIC }, elementRelationship: "atomic" },
    map: { elementType: { namedType: UNTYPED_DEDUCED }, elementRelationship: "separable" },
  },
];

const DEDUCED: TypeRef = { namedType: UNTYPED_DEDUCED };

/** A set of named types with lookups. */
export class Schema {
  readonly #types = new Map<string, NamedType>();
  readonly #fields = new WeakMap<MapType, Map<string, StructField>>();

  /** Indexes `types` (plus the two untyped types unless declared). */
  constructor(types: Iterable<NamedType>) {
    for (const t of BUILTIN_TYPES) this.#types.set(t.name, t);
    for (const t of types) this.#types.set(t.name, t);
  }

  /** The named type, or undefined. */
  named(name: string): NamedType | undefined {
    return this.#types.get(name);
  }

  /** Resolves a reference to its atom (applying an element relationship override). */
  resolve(tr: TypeRef): Atom {
    let atom: Atom = tr;
    if (tr.namedType !== undefined) {
      atom = this.#types.get(tr.namedType) ?? this.#types.get(UNTYPED_DEDUCED)!;
    }
    if (tr.elementRelationship === undefined) return atom;
    return {
      scalar: atom.scalar,
      list: atom.list && { ...atom.list, elementRelationship: tr.elementRelationship },
      map: atom.map && { ...atom.map, elementRelationship: tr.elementRelationship },
    };
  }

  /** The struct field `name` of a map type, or undefined. */
  field(m: MapType, name: string): StructField | undefined {
    if (!m.fields || m.fields.length === 0) return undefined;
    let idx = this.#fields.get(m);
    if (!idx) {
      idx = new Map(m.fields.map((f) => [f.name, f]));
      this.#fields.set(m, idx);
    }
    return idx.get(name);
  }

  /** The type of member `name` of a map type (a field, else the element type, else deduced). */
  memberType(m: MapType, name: string): TypeRef {
    return this.field(m, name)?.type ?? m.elementType ?? DEDUCED;
  }
}

/** Chooses the part of an atom that fits a value (a deduced type can be any of three). */
export function deduceAtom(atom: Atom, v: unknown): Atom {
  if (v === undefined) return atom;
  if (typeof v === "number" || typeof v === "string" || typeof v === "boolean") {
    if (atom.scalar) return { scalar: atom.scalar };
  } else if (Array.isArray(v)) {
    if (atom.list) return { list: atom.list };
  } else if (v !== null && typeof v === "object") {
    if (atom.map) return { map: atom.map };
  }
  return atom;
}

/** Whether a list is associative (a map list or a set). */
export function isAssociative(l: ListType): boolean {
  return l.elementRelationship === "associative";
}

/** Whether a map is atomic. */
export function isAtomicMap(m: MapType): boolean {
  return m.elementRelationship === "atomic";
}
