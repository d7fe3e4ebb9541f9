/**
 * A compiled, type-checked CEL expression and its evaluation with runtime cost tracking.
 *
 * @module
 */
import type { AstNode, Evaluator } from "./ast.ts";
import { callArgs, callName, children, receiverOf } from "./ast.ts";
import { CostBudget } from "./cost.ts";
import {
  callCost,
  costExceeded,
  LIST_CREATE_COST,
  MAP_CREATE_COST,
  operatorCost,
  PER_CALL_COST_LIMIT,
} from "./cost.ts";
import { celError, CelEvalFailure, toIssue } from "./errors.ts";
import type { CelIssue } from "./errors.ts";
import type { CostEstimate } from "./estimate.ts";

/** Options for one evaluation. */
export interface EvalOptions {
  /** Per-expression cost limit; default {@link PER_CALL_COST_LIMIT}. `Infinity` disables. */
  costLimit?: number;
  /** Track cost at all (default true). Without tracking, `cost` is reported as 0. */
  trackCost?: boolean;
  /** A per-object total shared by several evaluations; the actual cost is deducted. */
  budget?: CostBudget;
}

/** The outcome of an evaluation: a value or an error, with the cost spent. */
export type EvalResult =
  | { ok: true; value: unknown; cost: number }
  | { ok: false; error: CelIssue; cost: number };

/** Runtime state shared with the evaluator hook of one environment. */
export interface RuntimeHook {
  /** The active tracker, or null when not tracking. */
  tracker: CostTracker | null;
}

const BINARY = new Set(["==", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/", "%", "in"]);

/** Counts cost while an expression evaluates; installed on the library's evaluator. */
export class CostTracker {
  cost = 0;
  frame: unknown[] = [];
  constructor(readonly limit: number) {}

  run(ev: Evaluator, ast: AstNode, ctx: unknown): unknown {
    if (this.cost > this.limit) throw costExceeded(this.limit);
    const parent = this.frame;
    const frame: unknown[] = [];
    this.frame = frame;
    let v: unknown;
    try {
      v = ast.evaluate(ev, ast, ctx);
    } finally {
      this.frame = parent;
    }
    this.cost += priceNode(ast, frame, v);
    parent.push(v);
    if (this.cost > this.limit) throw costExceeded(this.limit);
    return v;
  }
}

/** The cost of one node given its children's values (in evaluation order) and its result. */
export function priceNode(ast: AstNode, frame: unknown[], _result: unknown): number {
  switch (ast.op) {
    case "value":
    case "||":
    case "&&":
    case "?:":
      return 0;
    case "list":
      return LIST_CREATE_COST;
    case "map":
      return MAP_CREATE_COST;
    case "call":
    case "rcall":
      return callCost(callName(ast)!, frame);
  }
  if (BINARY.has(ast.op)) return operatorCost(ast.op, frame[0], frame[1]);
  return 1;
}

/** Replaces a `matches` node's evaluation with the RE2 engine. */
export function installMatches(node: AstNode, matches: (s: string, p: string) => boolean): void {
  const recv = receiverOf(node);
  const args = callArgs(node);
  const [sNode, pNode] = recv ? [recv, args[0]] : [args[0], args[1]];
  if (!sNode || !pNode) return;
  node.evaluate = (ev, _ast, ctx) => {
    const s = ev.run(sNode, ctx);
    const p = ev.run(pNode, ctx);
    if (typeof s !== "string" || typeof p !== "string") {
      throw celError("no_matching_overload", "found no matching overload for 'matches'");
    }
    return matches(s, p);
  };
}

/** A compiled expression. Evaluate as often as needed; it never throws. */
export class CelProgram {
  readonly #fn: (ctx: Record<string, unknown>) => unknown;
  readonly #hook: RuntimeHook;
  readonly #root: AstNode;
  readonly #estimate: () => CostEstimate;
  #estimated?: CostEstimate;

  /** Internal: built by {@link CelEnvironment.compile}. */
  constructor(
    /** The expression text. */
    readonly expression: string,
    /** The checked result type, e.g. `bool`. */
    readonly outputType: string,
    fn: (ctx: Record<string, unknown>) => unknown,
    root: AstNode,
    hook: RuntimeHook,
    estimate: () => CostEstimate,
  ) {
    this.#fn = fn;
    this.#root = root;
    this.#hook = hook;
    this.#estimate = estimate;
  }

  /** The worst-case cost estimate from the checked expression and schema size limits. */
  estimateCost(): CostEstimate {
    return this.#estimated ??= this.#estimate();
  }

  /**
   * Evaluates with already converted CEL values as variables (see `CelEnvironment.activation`).
   * Returns the value or the error as a value, with the cost.
   */
  evaluate(vars: Record<string, unknown>, opts: EvalOptions = {}): EvalResult {
    const track = opts.trackCost !== false;
    const budget = opts.budget;
    let limit = opts.costLimit ?? PER_CALL_COST_LIMIT;
    if (budget) limit = Math.min(limit, Math.max(0, budget.remaining));
    const tracker = track ? new CostTracker(limit) : null;
    const previous = this.#hook.tracker;
    this.#hook.tracker = tracker;
    try {
      const value = this.#fn(vars);
      let cost = 0;
      if (tracker) {
        tracker.cost += priceNode(this.#root, tracker.frame, value);
        cost = tracker.cost;
        if (cost > tracker.limit) throw this.#exceeded(tracker, opts);
      }
      if (value instanceof Promise) {
        value.catch(() => {});
        return {
          ok: false,
          error: {
            code: "internal",
            message: "asynchronous evaluation is not supported",
            detail: "",
          },
          cost,
        };
      }
      if (budget && !budget.spend(cost)) {
        throw costExceeded(budget.remaining + cost, "per-object");
      }
      return { ok: true, value, cost };
    } catch (thrown) {
      const cost = tracker?.cost ?? 0;
      const e = tracker && tracker.cost > tracker.limit ? this.#exceeded(tracker, opts) : thrown;
      if (budget && !(e instanceof CelEvalFailure && e.code === "cost_limit_exceeded")) {
        budget.spend(cost);
      }
      return { ok: false, error: toIssue(e, this.expression, "evaluation_error"), cost };
    } finally {
      this.#hook.tracker = previous;
    }
  }

  #exceeded(tracker: CostTracker, opts: EvalOptions): CelEvalFailure {
    const perCall = opts.costLimit ?? PER_CALL_COST_LIMIT;
    if (opts.budget && tracker.limit < perCall) {
      opts.budget.spend(tracker.cost);
      return costExceeded(tracker.limit, "per-object");
    }
    return costExceeded(tracker.limit);
  }
}

/** Number of nodes, for tests and diagnostics. */
export function countNodes(n: AstNode): number {
  let c = 1;
  for (const x of children(n)) c += countNodes(x);
  return c;
}
