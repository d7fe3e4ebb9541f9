/**
 * The nesting limit of request bodies, checked twice: on the text before it is parsed, so that a
 * body nested a million deep is refused in microseconds instead of holding the event loop while
 * a parser builds it, and on the decoded value (Protobuf, and anything the text checks let by).
 *
 * kube-apiserver's JSON decoding stops at a depth of 10,000. The code that walks a body here
 * (merge and JSON patches, field ownership, validation, encoding) recurses once per level, and
 * some of it runs out of stack near 3,000 levels, which would answer a 500. No Kubernetes object
 * comes near this lower limit; a body past it is a 400 before anything walks it.
 *
 * @module
 */
import { CST, Lexer } from "yaml";
import { StatusError } from "../../shared/errors/status_error.ts";

/** The deepest nesting of objects and arrays a request body may have. */
export const MAX_BODY_DEPTH = 1000;

function tooDeep(): StatusError {
  return StatusError.badRequest(
    `the request body exceeds the maximum nesting depth of ${MAX_BODY_DEPTH}`,
  );
}

/** Throws 400 when `value` nests objects and arrays deeper than {@link MAX_BODY_DEPTH}. */
export function checkBodyDepth(value: unknown): void {
  if (value === null || typeof value !== "object") return;
  // Iterative, so that the check itself cannot run out of stack.
  const stack: Array<[object, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (depth > MAX_BODY_DEPTH) throw tooDeep();
    const members = Array.isArray(v) ? v : Object.values(v);
    for (const m of members) {
      if (m !== null && typeof m === "object") stack.push([m, depth + 1]);
    }
  }
}

/**
 * Throws 400 when JSON text opens more than {@link MAX_BODY_DEPTH} arrays and objects inside each
 * other, counting brackets outside strings and stopping at the first one past the limit. Text
 * too short to nest that deep is not scanned.
 */
export function checkJsonTextDepth(text: string): void {
  if (text.length <= 2 * MAX_BODY_DEPTH) return;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) i = closingQuote(text, i);
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_BODY_DEPTH) throw tooDeep();
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
}

/** The index of the quote that closes the JSON string opening at `open`, or the text's end. */
function closingQuote(text: string, open: number): number {
  let j = text.indexOf('"', open + 1);
  while (j > 0) {
    let backslashes = 0;
    while (text.charCodeAt(j - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return j;
    j = text.indexOf('"', j + 1);
  }
  return text.length;
}

/**
 * Throws 400 when YAML text may nest deeper than {@link MAX_BODY_DEPTH}, judged from the YAML
 * library's own tokens (so quoting, comments and block scalars are read as the parser reads
 * them) and stopping at the first token past the limit: flow collections open, plus the block
 * collections of the current line (the indentations of the lines it is nested in, and compact
 * `- `, `? ` and `: ` indicators on the line itself). That over-counts a little, never under.
 */
export function checkYamlTextDepth(text: string): void {
  if (text.length <= 2 * MAX_BODY_DEPTH) return;
  const indents: number[] = [];
  let flow = 0, indicators = 0, indent = 0, lineStart = true, scalarSource = false;
  for (const token of new Lexer().lex(text)) {
    if (scalarSource) { // the source of a plain or block scalar: content, not structure
      scalarSource = false;
      continue;
    }
    const type = token === CST.SCALAR ? "scalar-marker" : CST.tokenType(token);
    if (type === "newline") {
      lineStart = true;
      indent = indicators = 0;
      continue;
    }
    if (type === "space" || type === "comment") {
      if (lineStart && type === "space") indent = token.length;
      continue;
    }
    if (type === "doc-start" || type === "doc-end" || type === "doc-mode") {
      indents.length = flow = 0;
      continue;
    }
    if (lineStart && flow === 0) {
      while (indents.length > 0 && indents[indents.length - 1] >= indent) indents.pop();
      indents.push(indent);
    }
    lineStart = false;
    if (type === "scalar-marker") scalarSource = true;
    else if (type === "flow-seq-start" || type === "flow-map-start") flow++;
    else if (type === "flow-seq-end" || type === "flow-map-end") flow = Math.max(0, flow - 1);
    else if (
      flow === 0 &&
      (type === "seq-item-ind" || type === "explicit-key-ind" || type === "map-value-ind")
    ) indicators++;
    if (indents.length + indicators + flow > MAX_BODY_DEPTH) throw tooDeep();
  }
}
