/**
 * The JSONPath subset of CRD printer columns (kube's jsonpath with `{…}` added around the
 * column's path): fields (`.spec.replicas`, `['a.b']`), indexes (`[0]`, `[-1]`), wildcards
 * (`[*]`, `.*`) and filters comparing a field with a literal
 * (`[?(@.type=="Ready")]`, `==`, `!=`, `<`, `<=`, `>`, `>=`).
 *
 * @module
 */
import { isObject } from "../../../../shared/json/is_object.ts";

type Step =
  | { kind: "field"; name: string }
  | { kind: "index"; index: number }
  | { kind: "all" }
  | { kind: "filter"; path: string[]; op: string; literal: unknown };

/** A parsed path: `find(obj)` answers every value it selects, in order. */
export interface JsonPath {
  find(obj: unknown): unknown[];
}

/** Parses `path` (without braces); throws an Error with kube-like wording when it is not valid. */
export function parseJsonPath(path: string): JsonPath {
  const steps = parseSteps(path.trim());
  return { find: (obj) => evaluate(steps, [obj]) };
}

function parseSteps(src: string): Step[] {
  const steps: Step[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (c === ".") {
      i++;
      if (src[i] === "*") {
        steps.push({ kind: "all" });
        i++;
        continue;
      }
      const m = /^(?:\\.|[A-Za-z0-9_\-$/])*/.exec(src.slice(i))![0];
      if (m === "") {
        if (i >= src.length) break;
        throw new Error(`unrecognized character in action: ${JSON.stringify(src[i])}`);
      }
      steps.push({ kind: "field", name: m.replace(/\\(.)/g, "$1") });
      i += m.length;
    } else if (c === "[") {
      const end = closing(src, i);
      steps.push(parseBracket(src.slice(i + 1, end)));
      i = end + 1;
    } else {
      throw new Error(`unrecognized character in action: ${JSON.stringify(c)}`);
    }
  }
  return steps;
}

function closing(src: string, open: number): number {
  let quote = "";
  for (let i = open + 1; i < src.length; i++) {
    const c = src[i];
    if (quote) {
      if (c === "\\") i++;
      else if (c === quote) quote = "";
    } else if (c === "'" || c === '"') quote = c;
    else if (c === "]") return i;
  }
  throw new Error("unterminated array");
}

function parseBracket(inner: string): Step {
  const s = inner.trim();
  if (s === "*") return { kind: "all" };
  if (/^-?\d+$/.test(s)) return { kind: "index", index: Number(s) };
  const quoted = /^(['"])(.*)\1$/.exec(s);
  if (quoted) return { kind: "field", name: quoted[2].replace(/\\(.)/g, "$1") };
  const filter = /^\?\(\s*@((?:\.[A-Za-z0-9_\-$]+)+)\s*(==|!=|<=|>=|<|>)\s*(.+?)\s*\)$/.exec(s);
  if (filter) {
    return {
      kind: "filter",
      path: filter[1].slice(1).split("."),
      op: filter[2],
      literal: parseLiteral(filter[3]),
    };
  }
  throw new Error(`invalid array index ${s}`);
}

function parseLiteral(s: string): unknown {
  const quoted = /^(['"])(.*)\1$/.exec(s);
  if (quoted) return quoted[2];
  if (s === "true" || s === "false") return s === "true";
  if (s === "nil" || s === "null") return null;
  const n = Number(s);
  if (!Number.isNaN(n)) return n;
  throw new Error(`unrecognized filter literal ${s}`);
}

function evaluate(steps: Step[], current: unknown[]): unknown[] {
  let values = current;
  for (const step of steps) {
    const next: unknown[] = [];
    for (const v of values) next.push(...apply(step, v));
    values = next;
  }
  return values;
}

function apply(step: Step, v: unknown): unknown[] {
  switch (step.kind) {
    case "field":
      return isObject(v) && step.name in v ? [v[step.name]] : [];
    case "index": {
      if (!Array.isArray(v)) return [];
      const i = step.index < 0 ? v.length + step.index : step.index;
      return i >= 0 && i < v.length ? [v[i]] : [];
    }
    case "all":
      return Array.isArray(v) ? [...v] : isObject(v) ? Object.values(v) : [];
    case "filter":
      return Array.isArray(v) ? v.filter((el) => matches(step, el)) : [];
  }
}

function matches(step: Extract<Step, { kind: "filter" }>, el: unknown): boolean {
  const found = evaluate(step.path.map((name) => ({ kind: "field" as const, name })), [el]);
  if (found.length === 0) return false;
  const a = found[0];
  const b = step.literal;
  switch (step.op) {
    case "==":
      return a === b;
    case "!=":
      return a !== b;
    default:
      if (typeof a !== "number" || typeof b !== "number") return false;
      if (step.op === "<") return a < b;
      if (step.op === "<=") return a <= b;
      if (step.op === ">") return a > b;
      return a >= b;
  }
}
