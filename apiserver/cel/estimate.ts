/**
 * Worst-case cost estimation from a checked expression and the schema's size limits
 * (`maxLength`, `maxItems`, `maxProperties`), so a write can reject an expression that could
 * be too expensive. Unbounded sizes fall back to what fits in a maximal request.
 *
 * @module
 */
import type { AstNode } from "./ast.ts";
import { callArgs, callName, children, receiverOf } from "./ast.ts";
import { AUTHZ_CHECK_COST, callCostFromSizes, LIST_CREATE_COST, MAP_CREATE_COST } from "./cost.ts";
import { unescapePropertyName } from "./escaping.ts";
import type { CelSchema } from "./values.ts";

/** The estimate: a range of cost units. */
export interface CostEstimate {
  /** Lower bound. */
  min: number;
  /** Upper bound (worst case). */
  max: number;
}

/** The largest request body Kubernetes accepts (3 MiB), bounding unbounded sizes. */
export const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;

interface Info {
  cost: CostEstimate;
  size: number;
  schema?: CelSchema;
}

function minSerializedSize(s: CelSchema | undefined): number {
  switch (s?.type) {
    case "string":
      return 2; // ""
    case "integer":
    case "number":
      return 1;
    case "boolean":
      return 4;
    default:
      return 2; // {} or []
  }
}

function sizeOfSchema(s: CelSchema | undefined, inheritedMax = MAX_REQUEST_SIZE_BYTES): number {
  if (!s) return inheritedMax;
  if (s.type === "string") return s.maxLength ?? Math.min(inheritedMax, MAX_REQUEST_SIZE_BYTES - 2);
  if (s.type === "array") {
    return s.maxItems ?? Math.floor(MAX_REQUEST_SIZE_BYTES / (minSerializedSize(s.items) + 1));
  }
  if (s.type === "object") {
    if (s.maxProperties !== undefined) return s.maxProperties;
    if (s.properties) return Object.keys(s.properties).length;
    return Math.floor(MAX_REQUEST_SIZE_BYTES / 4);
  }
  return 1;
}

const add = (...cs: CostEstimate[]): CostEstimate => ({
  min: cs.reduce((a, c) => a + c.min, 0),
  max: cs.reduce((a, c) => a + c.max, 0),
});
const fixed = (n: number): CostEstimate => ({ min: n, max: n });

const MACROS = new Set(["all", "exists", "exists_one", "map", "filter"]);

function fieldSchema(s: CelSchema | undefined, field: string): CelSchema | undefined {
  if (!s) return undefined;
  const raw = unescapePropertyName(field);
  if (s.properties?.[raw]) return s.properties[raw];
  if (typeof s.additionalProperties === "object") return s.additionalProperties;
  if (s["x-kubernetes-embedded-resource"] && (raw === "apiVersion" || raw === "kind")) {
    return { type: "string" };
  }
  return undefined;
}

/** Estimates the cost range of `root` given the schemas of the declared variables. */
export function estimateCost(
  root: AstNode,
  vars: Map<string, CelSchema | undefined>,
): CostEstimate {
  return new CostEstimator(vars).estimate(root, new Map()).cost;
}

/** Walks an expression, estimating each node from its children. */
class CostEstimator {
  readonly #vars: Map<string, CelSchema | undefined>;

  constructor(vars: Map<string, CelSchema | undefined>) {
    this.#vars = vars;
  }

  /** The cost, size and schema of `n`, with `scope` binding the macros' iteration variables. */
  estimate(n: AstNode, scope: Map<string, Info>): Info {
    switch (n.op) {
      case "value":
        return valueInfo(n);
      case "id":
        return this.#id(n, scope);
      case ".":
      case ".?":
        return this.#select(n, scope);
      case "[]":
      case "[?]":
        return this.#index(n, scope);
      case "list":
        return this.#list(n, scope);
      case "map": {
        const items = children(n).map((c) => this.estimate(c, scope));
        return {
          cost: add(fixed(MAP_CREATE_COST), ...items.map((i) => i.cost)),
          size: items.length / 2,
        };
      }
      case "?:":
        return this.#conditional(n, scope);
      case "&&":
      case "||": {
        const [a, b] = children(n).map((x) => this.estimate(x, scope));
        return { cost: { min: a.cost.min, max: a.cost.max + b.cost.max }, size: 1 };
      }
      case "call":
      case "rcall":
        return this.#call(n, scope);
    }
    return this.#operator(n, scope);
  }

  #id(n: AstNode, scope: Map<string, Info>): Info {
    const name = n.args as string;
    const bound = scope.get(name);
    if (bound) return { ...bound, cost: fixed(1) };
    if (!this.#vars.has(name)) return { cost: fixed(1), size: 1 };
    const schema = this.#vars.get(name);
    return { cost: fixed(1), size: sizeOfSchema(schema), schema };
  }

  #select(n: AstNode, scope: Map<string, Info>): Info {
    const [l, f] = n.args as [AstNode, string];
    const left = this.estimate(l, scope);
    const schema = fieldSchema(left.schema, f);
    return { cost: add(left.cost, fixed(1)), size: sizeOfSchema(schema), schema };
  }

  #index(n: AstNode, scope: Map<string, Info>): Info {
    const [l, r] = n.args as [AstNode, AstNode];
    const left = this.estimate(l, scope), right = this.estimate(r, scope);
    const schema = left.schema?.items ??
      (typeof left.schema?.additionalProperties === "object"
        ? left.schema.additionalProperties
        : undefined);
    return {
      cost: add(left.cost, right.cost, fixed(1)),
      size: sizeOfSchema(schema, left.size),
      schema,
    };
  }

  #list(n: AstNode, scope: Map<string, Info>): Info {
    const items = children(n).map((c) => this.estimate(c, scope));
    return {
      cost: add(fixed(LIST_CREATE_COST), ...items.map((i) => i.cost)),
      size: items.length,
      schema: { type: "array", items: items[0]?.schema },
    };
  }

  #conditional(n: AstNode, scope: Map<string, Info>): Info {
    const [c, a, b] = children(n).map((x) => this.estimate(x, scope));
    return {
      cost: {
        min: c.cost.min + Math.min(a.cost.min, b.cost.min),
        max: c.cost.max + Math.max(a.cost.max, b.cost.max),
      },
      size: Math.max(a.size, b.size),
      schema: a.schema ?? b.schema,
    };
  }

  /** Unary and binary operators: comparisons, `in` and `+` cost by their operands' sizes. */
  #operator(n: AstNode, scope: Map<string, Info>): Info {
    const kids = children(n).map((x) => this.estimate(x, scope));
    const [a, b] = kids;
    let own = 1;
    if (b && (n.op === "==" || n.op === "!=" || n.op.startsWith("<") || n.op.startsWith(">"))) {
      own = 1 + Math.ceil(Math.min(a.size, b.size) * 0.1);
    } else if (b && n.op === "in") own = Math.max(1, b.size);
    else if (b && n.op === "+" && (a.schema?.type === "string" || a.schema?.type === "array")) {
      own = 1 + Math.ceil((a.size + b.size) * 0.1);
    }
    const size = n.op === "+" ? (a?.size ?? 0) + (b?.size ?? 0) : 1;
    return {
      cost: add(fixed(own), ...kids.map((k) => k.cost)),
      size,
      schema: n.op === "+" ? a?.schema : undefined,
    };
  }

  #call(n: AstNode, scope: Map<string, Info>): Info {
    const name = callName(n)!;
    const recvNode = receiverOf(n);
    const argNodes = callArgs(n);
    if (recvNode && MACROS.has(name) && argNodes[0]?.op === "id") {
      return this.#macro(name, recvNode, argNodes, scope);
    }
    if (name === "has") {
      return {
        cost: add(fixed(1), ...argNodes.map((a) => this.estimate(a, scope).cost)),
        size: 1,
      };
    }
    const parts = [
      ...(recvNode ? [this.estimate(recvNode, scope)] : []),
      ...argNodes.map((a) => this.estimate(a, scope)),
    ];
    let own: number;
    if (name === "check") own = AUTHZ_CHECK_COST;
    else {
      own = callCostFromSizes(name, parts.map((p) => p.size));
    }
    const listElem = recvNode && parts[0]?.schema?.type === "array"
      ? parts[0].schema.items
      : undefined;
    return {
      cost: add(fixed(own), ...parts.map((p) => p.cost)),
      size: name === "split" || name === "findAll" ? (parts[0]?.size ?? 1) : parts[0]?.size ?? 1,
      schema: (name === "min" || name === "max") ? listElem : undefined,
    };
  }

  /** A comprehension macro: its body runs once per element of the receiver. */
  #macro(name: string, recvNode: AstNode, argNodes: AstNode[], scope: Map<string, Info>): Info {
    const recv = this.estimate(recvNode, scope);
    const iterVar = argNodes[0].args as string;
    const elemSchema = recv.schema?.type === "array" ? recv.schema.items : undefined;
    const inner = new Map(scope);
    inner.set(iterVar, {
      cost: fixed(1),
      size: sizeOfSchema(elemSchema, recv.size),
      schema: elemSchema,
    });
    const body = argNodes.slice(1).map((a) => this.estimate(a, inner));
    const perIter = add(fixed(1), ...body.map((b) => b.cost));
    return {
      cost: { min: recv.cost.min + 1, max: recv.cost.max + 1 + recv.size * perIter.max },
      size: recv.size,
      schema: name === "filter" ? recv.schema : undefined,
    };
  }
}

/** A literal: free, sized by its length. */
function valueInfo(n: AstNode): Info {
  const v = n.args;
  return {
    cost: fixed(0),
    size: typeof v === "string" ? v.length : v instanceof Uint8Array ? v.length : 1,
  };
}
