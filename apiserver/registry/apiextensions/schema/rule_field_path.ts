/**
 * The `fieldPath` of a validation rule (kube's cel.ValidFieldPath): a path relative to the
 * rule's node made of `.name` and `['name']` steps (single quotes, backslash escapes). A step
 * into an object with properties must name one of them (a field, `.name`); a step into a map
 * (additionalProperties) is a key (`[name]`). The resolved steps extend the error's field path.
 *
 * @module
 */
import type { JSONSchemaProps } from "../../../../shared/api/apiextensions/v1/types.ts";
import { childPath, keyPath } from "./field_paths.ts";
import { additionalOf } from "./schema_nodes.ts";

/** One resolved step: a property (`.name`) or a map key (`[name]`). */
export interface PathSegment {
  kind: "field" | "key";
  name: string;
}

const ESCAPES: Record<string, string> = {
  a: "\x07",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "'": "'",
  "\\": "\\",
};

/** Splits into `.`, `[`, `]` and the text between them (quoted strings kept whole). */
function tokens(s: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < s.length) {
    if (s[i] === "'") {
      let j = i + 1;
      while (j < s.length && !(s[j] === "'" && s[j - 1] !== "\\")) j++;
      out.push(s.slice(i, j + 1));
      i = j + 1;
    } else if (".[]".includes(s[i])) out.push(s[i++]);
    else {
      let j = i;
      while (j < s.length && !".[]".includes(s[j])) j++;
      out.push(s.slice(i, j));
      i = j;
    }
  }
  return out;
}

function unquote(tok: string): string | Error {
  if (tok.length < 2 || tok[0] !== "'" || tok[tok.length - 1] !== "'") {
    return new Error(`expected single quoted string but got ${tok}`);
  }
  let bad = "";
  const out = tok.slice(1, -1).replace(/\\./g, (m) => {
    const e = ESCAPES[m[1]];
    if (e === undefined) bad ||= m;
    return e ?? "";
  });
  return bad ? new Error(`invalid string literal: invalid escape char ${bad}`) : out;
}

function step(
  s: JSONSchemaProps | undefined,
  name: string,
): [PathSegment, JSONSchemaProps | undefined] | Error {
  if (s?.properties) {
    const p = s.properties[name];
    return p ? [{ kind: "field", name }, p] : new Error("does not refer to a valid field");
  }
  if (s?.additionalProperties !== undefined) return [{ kind: "key", name }, additionalOf(s)];
  return new Error("does not refer to a valid field");
}

/** Resolves `fieldPath` against `schema`: its steps, or the error kube reports. */
export function resolveRuleFieldPath(
  schema: JSONSchemaProps,
  fieldPath: string,
): PathSegment[] | Error {
  const toks = tokens(fieldPath);
  const out: PathSegment[] = [];
  let cur: JSONSchemaProps | undefined = schema;
  for (let i = 0; i < toks.length; i++) {
    let name: string | Error;
    if (toks[i] === ".") {
      if (i + 1 >= toks.length) return new Error("unexpected end of JSON path");
      name = toks[++i];
    } else if (toks[i] === "[") {
      if (i + 1 >= toks.length) return new Error("unexpected end of JSON path");
      name = unquote(toks[++i]);
      if (name instanceof Error) return name;
      if (i + 1 >= toks.length) return new Error("unexpected end of JSON path");
      if (toks[++i] !== "]") return new Error(`expected ] but got ${toks[i]}`);
    } else return new Error(`expected [ or . but got: ${toks[i]}`);
    const r = step(cur, name);
    if (r instanceof Error) return r;
    out.push(r[0]);
    cur = r[1];
  }
  return out;
}

/** Appends the segments to a field path as `field.Path` does. */
export function appendSegments(path: string, segments: PathSegment[]): string {
  let p = path;
  for (const seg of segments) {
    p = seg.kind === "field" ? childPath(p, seg.name) : keyPath(p, seg.name);
  }
  return p;
}
