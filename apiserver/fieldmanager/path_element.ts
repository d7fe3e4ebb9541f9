/**
 * Path elements of field paths and their text forms: `f:<name>` (a struct field or map key),
 * `k:<json>` (an associative list item by its keys), `v:<json>` (a set item by value) and
 * `i:<n>` (a list item by index), ordered as structured-merge-diff orders them.
 *
 * @module
 */
import { compareValues, goJson, isJsonObject, valueToString } from "./value.ts";

/** One step of a field path. */
export type PathElement =
  | { kind: "field"; name: string }
  | { kind: "key"; fields: ReadonlyArray<readonly [string, unknown]> }
  | { kind: "value"; value: unknown }
  | { kind: "index"; index: number };

/** A field path: the steps from the object root. */
export type Path = readonly PathElement[];

const KIND_ORDER = { field: 0, key: 1, value: 2, index: 3 } as const;

/** A field element. */
export function fieldElement(name: string): PathElement {
  return { kind: "field", name };
}

/** A key element from key fields (sorted by name). */
export function keyElement(fields: Iterable<readonly [string, unknown]>): PathElement {
  const list = [...fields].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return { kind: "key", fields: list };
}

/** Orders path elements: fields, then keys, values, indexes. */
export function comparePathElements(a: PathElement, b: PathElement): number {
  if (a.kind !== b.kind) return KIND_ORDER[a.kind] - KIND_ORDER[b.kind];
  switch (a.kind) {
    case "field": {
      const n = (b as { name: string }).name;
      return a.name < n ? -1 : a.name > n ? 1 : 0;
    }
    case "key": {
      const bf = (b as { fields: ReadonlyArray<readonly [string, unknown]> }).fields;
      for (let i = 0;; i++) {
        if (i >= a.fields.length && i >= bf.length) return 0;
        if (i >= a.fields.length) return -1;
        if (i >= bf.length) return 1;
        const [an, av] = a.fields[i], [bn, bv] = bf[i];
        if (an !== bn) return an < bn ? -1 : 1;
        const c = compareValues(av, bv);
        if (c !== 0) return c;
      }
    }
    case "value":
      return compareValues(a.value, (b as { value: unknown }).value);
    case "index":
      return a.index - (b as { index: number }).index;
  }
}

/** The fieldsV1 key of an element (`f:name`, `k:{...}`, `v:...`, `i:0`). */
export function serializePathElement(pe: PathElement): string {
  switch (pe.kind) {
    case "field":
      return `f:${pe.name}`;
    case "key":
      return `k:{${pe.fields.map(([n, v]) => `${goJson(n)}:${goJson(v)}`).join(",")}}`;
    case "value":
      return `v:${goJson(pe.value)}`;
    case "index":
      return `i:${pe.index}`;
  }
}

/** Thrown for a fieldsV1 key that is not a valid path element. */
export class PathElementError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PathElementError";
  }
}

/** Marker for element prefixes this version does not know (skipped when reading fieldsV1). */
export const UNKNOWN_ELEMENT = Symbol("unknown path element type");

/** Parses a fieldsV1 key; returns UNKNOWN_ELEMENT for an unknown prefix. */
export function deserializePathElement(s: string): PathElement | typeof UNKNOWN_ELEMENT {
  if (s.length < 2 || s[1] !== ":") {
    if (s.length === 0) throw new PathElementError("key is empty");
    return UNKNOWN_ELEMENT;
  }
  const body = s.slice(2);
  switch (s[0]) {
    case "f":
      return { kind: "field", name: body };
    case "v":
      return { kind: "value", value: parseJson(body) };
    case "k": {
      const v = parseJson(body);
      if (!isJsonObject(v)) throw new PathElementError(`key element must be an object: ${s}`);
      const keys = Object.entries(v);
      if (keys.length === 0) throw new PathElementError("key element has no fields");
      return keyElement(keys);
    }
    case "i": {
      if (!/^-?[0-9]+$/.test(body)) throw new PathElementError(`invalid index: ${s}`);
      return { kind: "index", index: Number(body) };
    }
  }
  return UNKNOWN_ELEMENT;
}

function parseJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch (err) {
    throw new PathElementError(`invalid JSON in path element: ${(err as Error).message}`);
  }
}

/** The element as paths print it (`.name`, `[name="a"]`, `[=v]`, `[0]`). */
export function pathElementToString(pe: PathElement): string {
  switch (pe.kind) {
    case "field":
      return `.${pe.name}`;
    case "key":
      return `[${pe.fields.map(([n, v]) => `${n}=${valueToString(v)}`).join(",")}]`;
    case "value":
      return `[=${valueToString(pe.value)}]`;
    case "index":
      return `[${pe.index}]`;
  }
}

/** A path as conflict messages print it, e.g. `.spec.containers[name="a"].image`. */
export function pathToString(p: Path): string {
  return p.map(pathElementToString).join("");
}
