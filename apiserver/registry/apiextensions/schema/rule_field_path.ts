/**
 * The `fieldPath` of a validation rule: a path relative to the rule's node in dot notation
 * (`.spec.replicas`) or with quoted keys (`['a.b']`), which must name a field the schema
 * declares; its segments extend the error's field path.
 *
 * @module
 */
import type { JSONSchemaProps } from "../../../../shared/api/apiextensions/v1/types.ts";
import { childPath, keyPath } from "./field_paths.ts";
import { additionalOf } from "./schema_nodes.ts";

/** One step: a property (`.name`) or a map key (`['key']`). */
export interface PathSegment {
  kind: "field" | "key";
  name: string;
}

/** Parses `fieldPath`; an error text when it is not valid syntax. */
export function parseRuleFieldPath(fieldPath: string): PathSegment[] | string {
  const out: PathSegment[] = [];
  let i = 0;
  const s = fieldPath.trim();
  while (i < s.length) {
    if (s[i] === ".") {
      let j = i + 1;
      while (j < s.length && s[j] !== "." && s[j] !== "[") j++;
      if (j === i + 1) return `expected a field name after '.' at position ${i}`;
      out.push({ kind: "field", name: s.slice(i + 1, j) });
      i = j;
    } else if (s[i] === "[" && (s[i + 1] === "'" || s[i + 1] === '"')) {
      const q = s[i + 1];
      let j = i + 2, name = "";
      while (j < s.length && s[j] !== q) {
        if (s[j] === "\\" && j + 1 < s.length) j++;
        name += s[j++];
      }
      if (s[j] !== q || s[j + 1] !== "]") return `unterminated key at position ${i}`;
      out.push({ kind: "key", name });
      i = j + 2;
    } else {
      return `expected [ or . at position ${i}`;
    }
  }
  return out;
}

/** Walks `segments` from `schema`; an error text when a step names no declared field. */
export function resolveRuleFieldPath(
  schema: JSONSchemaProps,
  segments: PathSegment[],
): string | undefined {
  let cur: JSONSchemaProps | undefined = schema;
  for (const seg of segments) {
    const next: JSONSchemaProps | undefined = cur?.properties?.[seg.name] ?? additionalOf(cur);
    const embeddedMeta = cur?.["x-kubernetes-embedded-resource"] &&
      ["apiVersion", "kind", "metadata"].includes(seg.name);
    if (!next && !embeddedMeta) return `does not refer to a valid field`;
    cur = next;
  }
  return undefined;
}

/** Appends the segments to a field path as `field.Path` does. */
export function appendSegments(path: string, segments: PathSegment[]): string {
  let p = path;
  for (const seg of segments) {
    p = seg.kind === "field" ? childPath(p, seg.name) : keyPath(p, seg.name);
  }
  return p;
}
