/**
 * Minimal typing of the underlying library's AST nodes, and a walker. The library's node shape
 * (`op`, `args`, `start`, own-property `evaluate`, `checkedType`) is internal, so it is touched
 * here and in `program.ts` only, and covered by tests.
 *
 * @module
 */

/** An AST node as the library builds it. */
export interface AstNode {
  /** Operator: `value`, `id`, `.`, `[]`, `call`, `rcall`, `list`, `map`, `==`, ... */
  op: string;
  /** Operands (shape depends on `op`). */
  args: unknown;
  /** Offset of the node in the input. */
  start: number;
  /** Offset after the node. */
  end: number;
  /** The type the checker assigned. */
  checkedType?: { name: string; kind: string };
  /** The node's evaluation entry point. */
  evaluate: (ev: Evaluator, ast: AstNode, ctx: unknown) => unknown;
}

/** The library's evaluator as seen from a node's `evaluate`. */
export interface Evaluator {
  /** Evaluates a child node. */
  run(ast: AstNode, ctx: unknown): unknown;
}

/** Reports whether `x` is an AST node. */
export function isNode(x: unknown): x is AstNode {
  return typeof x === "object" && x !== null && typeof (x as AstNode).op === "string" &&
    "args" in x && typeof (x as AstNode).evaluate === "function";
}

/** The child nodes of `n`, in source order. */
export function children(n: AstNode): AstNode[] {
  const out: AstNode[] = [];
  const visit = (x: unknown) => {
    if (isNode(x)) out.push(x);
    else if (Array.isArray(x)) x.forEach(visit);
  };
  visit(n.args);
  return out;
}

/** Visits `n` and all its descendants, parents first. */
export function walk(n: AstNode, f: (n: AstNode) => void): void {
  f(n);
  for (const c of children(n)) walk(c, f);
}

/** The function name of a `call` or `rcall` node. */
export function callName(n: AstNode): string | undefined {
  if (n.op !== "call" && n.op !== "rcall") return undefined;
  return (n.args as unknown[])[0] as string;
}

/** The receiver of an `rcall` node. */
export function receiverOf(n: AstNode): AstNode | undefined {
  return n.op === "rcall" ? (n.args as unknown[])[1] as AstNode : undefined;
}

/** The argument nodes of a `call` or `rcall` node. */
export function callArgs(n: AstNode): AstNode[] {
  if (n.op === "call") return (n.args as unknown[])[1] as AstNode[];
  if (n.op === "rcall") return (n.args as unknown[])[2] as AstNode[];
  return [];
}
