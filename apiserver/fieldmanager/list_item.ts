/** Identifies associative list items: by key fields (map lists) or by value (sets). */
import { keyElement, type Path, type PathElement, serializePathElement } from "./path_element.ts";
import type { ListType, Schema } from "./schema.ts";
import { TypedError } from "./typed_error.ts";
import { isJsonObject } from "./value.ts";

/** The path element of an item of an associative list; throws TypedError when it has none. */
export function listItemElement(
  schema: Schema,
  list: ListType,
  item: unknown,
  path: Path,
  index: number,
): PathElement {
  const fail = (msg: string): never => {
    throw new TypedError(path, `element ${index}: ${msg}`);
  };
  if (list.elementRelationship !== "associative") {
    return fail("invalid indexing of non-associative list");
  }
  if (list.keys && list.keys.length > 0) {
    if (item === null) return fail("associative list with keys may not have a null element");
    if (!isJsonObject(item)) {
      return fail("associative list with keys may not have non-map elements");
    }
    const fields: [string, unknown][] = [];
    const elem = schema.resolve(list.elementType).map;
    for (const k of list.keys) {
      if (k in item && item[k] !== undefined) {
        fields.push([k, item[k]]);
        continue;
      }
      const def = elem ? schema.field(elem, k)?.default : undefined;
      if (def === undefined || def === null) {
        fail(
          `associative list with keys has an element that omits key field ${
            JSON.stringify(k)
          } (and doesn't have default value)`,
        );
      }
      fields.push([k, def]);
    }
    return keyElement(fields);
  }
  if (isJsonObject(item)) {
    return fail("associative list without keys has an element that's a map type");
  }
  if (Array.isArray(item)) return fail("not supported: associative list with lists as elements");
  if (item === null) {
    return fail("associative list without keys has an element that's an explicit null");
  }
  return { kind: "value", value: item };
}

/** One identity of an associative list: its element, first item and how many items share it. */
export interface ListIdentity {
  pe: PathElement;
  item: unknown;
  count: number;
}

/**
 * The items of an associative list by identity (serialized path element), in first-seen order;
 * `count` > 1 marks an identity several items share. Throws TypedError like
 * {@link listItemElement}.
 */
export function itemsByIdentity(
  schema: Schema,
  list: ListType,
  items: readonly unknown[],
  path: Path,
): Map<string, ListIdentity> {
  const out = new Map<string, ListIdentity>();
  items.forEach((item, i) => {
    const pe = listItemElement(schema, list, item, path, i);
    const k = serializePathElement(pe);
    const got = out.get(k);
    if (got) got.count++;
    else out.set(k, { pe, item, count: 1 });
  });
  return out;
}
