/**
 * Label selectors: the `labelSelector` query grammar of Kubernetes (`=`, `==`, `!=`, `in`,
 * `notin`, exists, `!key`, and the rarely used `>`/`<`), the `LabelSelector` object form
 * (matchLabels, matchExpressions), matching, and the canonical string form. Parse errors are
 * {@link SelectorError}s carrying Kubernetes' messages.
 *
 * @module
 */
import { compareStrings, goQuote } from "../api/validation/go_quote.ts";
import { isQualifiedName, isValidLabelValue } from "../api/validation/identifiers.ts";
import { SelectorError } from "./selector_error.ts";

/** Operators of a label requirement, spelled as Kubernetes' `selection.Operator`. */
export type LabelOperator = "=" | "==" | "!=" | "in" | "notin" | "exists" | "!" | "gt" | "lt";

/** One requirement: all requirements of a selector must hold. */
export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  readonly values: readonly string[];
}

/** A requirement of a `LabelSelector` object. */
export interface LabelSelectorRequirement {
  key: string;
  operator: "In" | "NotIn" | "Exists" | "DoesNotExist" | string;
  values?: string[];
}

/** The `LabelSelector` object of the API (e.g. a Deployment's `spec.selector`). */
export interface LabelSelectorObject {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

const BINARY_OPERATORS = ["in", "notin", "=", "==", "!=", "gt", "lt"];
const VALID_OPERATORS = [...BINARY_OPERATORS, "exists", "!"];

/** A parsed label selector. Immutable. */
export class LabelSelector {
  /** The requirements, sorted by key. */
  readonly requirements: readonly LabelRequirement[];
  readonly #matchesNothing: boolean;

  private constructor(requirements: LabelRequirement[], nothing: boolean) {
    this.requirements = requirements;
    this.#matchesNothing = nothing;
  }

  /** Builds a selector from requirements (sorted by key, as Kubernetes does). */
  static of(requirements: readonly LabelRequirement[]): LabelSelector {
    const sorted = [...requirements].sort((a, b) => compareStrings(a.key, b.key));
    return new LabelSelector(sorted, false);
  }

  static #EVERYTHING = new LabelSelector([], false);
  static #NOTHING = new LabelSelector([], true);

  /** The selector that matches everything (the empty selector). */
  static everything(): LabelSelector {
    return LabelSelector.#EVERYTHING;
  }

  /** The selector that matches nothing (from a null `LabelSelector` object). */
  static nothing(): LabelSelector {
    return LabelSelector.#NOTHING;
  }

  /** True when the selector does not restrict anything. */
  empty(): boolean {
    return !this.#matchesNothing && this.requirements.length === 0;
  }

  /** Whether `labels` satisfy every requirement. */
  matches(labels: Readonly<Record<string, string>> | undefined): boolean {
    if (this.#matchesNothing) return false;
    const ls = labels ?? {};
    for (const r of this.requirements) if (!requirementMatches(r, ls)) return false;
    return true;
  }

  /**
   * The value a key must have, when the selector pins it with `=`, `==` or a one-value `in`;
   * undefined otherwise.
   */
  requiresExactMatch(key: string): string | undefined {
    for (const r of this.requirements) {
      if (r.key !== key) continue;
      if (
        (r.operator === "=" || r.operator === "==" || r.operator === "in") && r.values.length === 1
      ) {
        return r.values[0];
      }
      return undefined;
    }
    return undefined;
  }

  /** The canonical string form, as Kubernetes prints it (`a=b,c in (d,e),!f`). */
  toString(): string {
    return this.requirements.map(requirementString).join(",");
  }
}

function has(labels: Readonly<Record<string, string>>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(labels, key);
}

const INT64 = /^[+-]?[0-9]+$/;

function parseInt64(s: string): bigint | undefined {
  if (!INT64.test(s)) return undefined;
  const v = BigInt(s);
  if (v > 9223372036854775807n || v < -9223372036854775808n) return undefined;
  return v;
}

function requirementMatches(
  r: LabelRequirement,
  labels: Readonly<Record<string, string>>,
): boolean {
  switch (r.operator) {
    case "in":
    case "=":
    case "==":
      return has(labels, r.key) && r.values.includes(labels[r.key]);
    case "notin":
    case "!=":
      return !has(labels, r.key) || !r.values.includes(labels[r.key]);
    case "exists":
      return has(labels, r.key);
    case "!":
      return !has(labels, r.key);
    case "gt":
    case "lt": {
      if (!has(labels, r.key) || r.values.length !== 1) return false;
      const have = parseInt64(labels[r.key]);
      const want = parseInt64(r.values[0]);
      if (have === undefined || want === undefined) return false;
      return r.operator === "gt" ? have > want : have < want;
    }
  }
}

function requirementString(r: LabelRequirement): string {
  let s = r.operator === "!" ? "!" + r.key : r.key;
  switch (r.operator) {
    case "exists":
    case "!":
      return s;
    case "=":
    case "==":
    case "!=":
      s += r.operator;
      break;
    case "in":
    case "notin":
      s += ` ${r.operator} (`;
      break;
    case "gt":
      s += ">";
      break;
    case "lt":
      s += "<";
      break;
  }
  const values = r.values.length === 1 ? r.values[0] : [...r.values].sort(compareStrings).join(",");
  s += values;
  if (r.operator === "in" || r.operator === "notin") s += ")";
  return s;
}

/** A Go `field.Error` rendered as `<path>: Invalid value: <%q value>: <detail>`. */
function invalidMessage(path: string, value: string, detail: string): string {
  return `${path}: Invalid value: ${goQuote(value)}: ${detail}`;
}

function goStringSlice(values: readonly string[]): string {
  return `[]string{${values.map(goQuote).join(", ")}}`;
}

/** Aggregates messages as Kubernetes' `utilerrors.NewAggregate(...).Error()` does. */
function aggregate(msgs: string[]): string {
  const unique = [...new Set(msgs)];
  return unique.length === 1 ? unique[0] : `[${unique.join(", ")}]`;
}

/** Joins a path prefix and a child the way `field.Path` prints it (nil path prints as the child). */
function child(path: string | undefined, name: string): string {
  return path ? `${path}.${name}` : name;
}

/**
 * Validates and builds one requirement, as Kubernetes' `labels.NewRequirement`. Throws a
 * {@link SelectorError} with the aggregated field errors when the key, operator or values are
 * not acceptable. `path` prefixes field paths in messages (none by default).
 */
export function newRequirement(
  key: string,
  operator: LabelOperator,
  values: readonly string[],
  path?: string,
): LabelRequirement {
  const msgs: string[] = [];
  const keyErrs = isQualifiedName(key);
  if (keyErrs.length > 0) msgs.push(invalidMessage(child(path, "key"), key, keyErrs.join("; ")));
  const valuesPath = child(path, "values");
  switch (operator) {
    case "in":
    case "notin":
      if (values.length === 0) {
        msgs.push(
          `${valuesPath}: Invalid value: ${goStringSlice(values)}: ` +
            "for 'in', 'notin' operators, values set can't be empty",
        );
      }
      break;
    case "=":
    case "==":
    case "!=":
      if (values.length !== 1) {
        msgs.push(
          `${valuesPath}: Invalid value: ${goStringSlice(values)}: ` +
            "exact-match compatibility requires one single value",
        );
      }
      break;
    case "exists":
    case "!":
      if (values.length !== 0) {
        msgs.push(
          `${valuesPath}: Invalid value: ${goStringSlice(values)}: ` +
            "values set must be empty for exists and does not exist",
        );
      }
      break;
    case "gt":
    case "lt":
      if (values.length !== 1) {
        msgs.push(
          `${valuesPath}: Invalid value: ${goStringSlice(values)}: ` +
            "for 'Gt', 'Lt' operators, exactly one value is required",
        );
      }
      values.forEach((v, i) => {
        if (parseInt64(v) === undefined) {
          msgs.push(
            invalidMessage(
              `${valuesPath}[${i}]`,
              v,
              "for 'Gt', 'Lt' operators, the value must be an integer",
            ),
          );
        }
      });
      break;
    default:
      msgs.push(
        `${child(path, "operator")}: Unsupported value: ${goQuote(String(operator))}: ` +
          `supported values: ${VALID_OPERATORS.map(goQuote).join(", ")}`,
      );
  }
  values.forEach((v, i) => {
    const errs = isValidLabelValue(v);
    if (errs.length > 0) {
      msgs.push(invalidMessage(`${valuesPath}[${i}][${key}]`, v, errs.join("; ")));
    }
  });
  if (msgs.length > 0) throw new SelectorError(aggregate(msgs));
  return { key, operator, values: [...values] };
}

// ---------------------------------------------------------------------------------------------
// Lexer and parser of the string grammar. The lexer works on the code units of the input the
// way Kubernetes' works on bytes: a NUL reads as end of input.

const enum Tok {
  Error,
  End,
  ClosedPar,
  Comma,
  DoesNotExist,
  DoubleEquals,
  Equals,
  GreaterThan,
  Identifier,
  In,
  LessThan,
  NotEquals,
  NotIn,
  OpenPar,
}

const KEYWORDS: Record<string, Tok> = {
  ")": Tok.ClosedPar,
  ",": Tok.Comma,
  "!": Tok.DoesNotExist,
  "==": Tok.DoubleEquals,
  "=": Tok.Equals,
  ">": Tok.GreaterThan,
  "in": Tok.In,
  "<": Tok.LessThan,
  "!=": Tok.NotEquals,
  "notin": Tok.NotIn,
  "(": Tok.OpenPar,
};

function keyword(s: string): Tok | undefined {
  return Object.prototype.hasOwnProperty.call(KEYWORDS, s) ? KEYWORDS[s] : undefined;
}

function isWhitespace(ch: string): boolean {
  return ch === " " || ch === "\t" || ch === "\r" || ch === "\n";
}

function isSpecial(ch: string): boolean {
  return ch === "=" || ch === "!" || ch === "(" || ch === ")" || ch === "," || ch === ">" ||
    ch === "<";
}

interface Item {
  tok: Tok;
  lit: string;
}

class Lexer {
  #s: string;
  #pos = 0;

  constructor(s: string) {
    this.#s = s;
  }

  #read(): string {
    if (this.#pos < this.#s.length) return this.#s[this.#pos++];
    return "\0";
  }

  #unread(): void {
    this.#pos--;
  }

  lex(): Item {
    let ch = this.#read();
    while (isWhitespace(ch)) ch = this.#read();
    if (ch === "\0") return { tok: Tok.End, lit: "" };
    this.#unread();
    return isSpecial(ch) ? this.#special() : this.#identOrKeyword();
  }

  #identOrKeyword(): Item {
    let buf = "";
    for (;;) {
      const ch = this.#read();
      if (ch === "\0") break;
      if (isSpecial(ch) || isWhitespace(ch)) {
        this.#unread();
        break;
      }
      buf += ch;
    }
    const kw = keyword(buf);
    return kw !== undefined ? { tok: kw, lit: buf } : { tok: Tok.Identifier, lit: buf };
  }

  #special(): Item {
    let last: Item | undefined;
    let buf = "";
    for (;;) {
      const ch = this.#read();
      if (ch === "\0") break;
      if (!isSpecial(ch)) {
        this.#unread();
        break;
      }
      buf += ch;
      const kw = keyword(buf);
      if (kw !== undefined) {
        last = { tok: kw, lit: buf };
      } else if (last) {
        this.#unread();
        break;
      }
    }
    if (!last) return { tok: Tok.Error, lit: `error expected: keyword found '${buf}'` };
    return last;
  }
}

const enum Ctx {
  KeyAndOperator,
  Values,
}

class Parser {
  #items: Item[] = [];
  #pos = 0;

  constructor(input: string) {
    const lexer = new Lexer(input);
    for (;;) {
      const item = lexer.lex();
      this.#items.push(item);
      if (item.tok === Tok.End) break;
    }
  }

  #adjust(item: Item, ctx: Ctx): Item {
    if (ctx === Ctx.Values && (item.tok === Tok.In || item.tok === Tok.NotIn)) {
      return { tok: Tok.Identifier, lit: item.lit };
    }
    return item;
  }

  #lookahead(ctx: Ctx): Item {
    return this.#adjust(this.#items[this.#pos], ctx);
  }

  #consume(ctx: Ctx): Item {
    return this.#adjust(this.#items[this.#pos++], ctx);
  }

  parse(): LabelRequirement[] {
    const reqs: LabelRequirement[] = [];
    for (;;) {
      const { tok, lit } = this.#lookahead(Ctx.Values);
      if (tok === Tok.Identifier || tok === Tok.DoesNotExist) {
        let r: LabelRequirement;
        try {
          r = this.#requirement();
        } catch (e) {
          const msg = e instanceof Error ? e.message : String(e);
          throw new SelectorError(`unable to parse requirement: ${msg}`);
        }
        reqs.push(r);
        const next = this.#consume(Ctx.Values);
        if (next.tok === Tok.End) return reqs;
        if (next.tok === Tok.Comma) {
          const after = this.#lookahead(Ctx.Values);
          if (after.tok !== Tok.Identifier && after.tok !== Tok.DoesNotExist) {
            throw new SelectorError(`found '${after.lit}', expected: identifier after ','`);
          }
          continue;
        }
        throw new SelectorError(`found '${next.lit}', expected: ',' or 'end of string'`);
      }
      if (tok === Tok.End) return reqs;
      throw new SelectorError(`found '${lit}', expected: !, identifier, or 'end of string'`);
    }
  }

  #requirement(): LabelRequirement {
    const [key, inferred] = this.#keyAndInferOperator();
    if (inferred === "exists" || inferred === "!") return newRequirement(key, inferred, []);
    const op = this.#operator();
    const values = op === "in" || op === "notin" ? this.#values() : this.#exactValue();
    return newRequirement(key, op, [...values].sort(compareStrings));
  }

  #keyAndInferOperator(): [string, LabelOperator | undefined] {
    let op: LabelOperator | undefined;
    let item = this.#consume(Ctx.Values);
    if (item.tok === Tok.DoesNotExist) {
      op = "!";
      item = this.#consume(Ctx.Values);
    }
    if (item.tok !== Tok.Identifier) throw new Error(`found '${item.lit}', expected: identifier`);
    const keyErrs = isQualifiedName(item.lit);
    if (keyErrs.length > 0) throw new Error(invalidMessage("<nil>", item.lit, keyErrs.join("; ")));
    const next = this.#lookahead(Ctx.Values).tok;
    if ((next === Tok.End || next === Tok.Comma) && op !== "!") op = "exists";
    return [item.lit, op];
  }

  #operator(): LabelOperator {
    const { tok, lit } = this.#consume(Ctx.KeyAndOperator);
    switch (tok) {
      case Tok.In:
        return "in";
      case Tok.Equals:
        return "=";
      case Tok.DoubleEquals:
        return "==";
      case Tok.GreaterThan:
        return "gt";
      case Tok.LessThan:
        return "lt";
      case Tok.NotIn:
        return "notin";
      case Tok.NotEquals:
        return "!=";
      default:
        throw new Error(`found '${lit}', expected: ${BINARY_OPERATORS.join(", ")}`);
    }
  }

  #values(): Set<string> {
    const open = this.#consume(Ctx.Values);
    if (open.tok !== Tok.OpenPar) throw new Error(`found '${open.lit}' expected: '('`);
    const { tok, lit } = this.#lookahead(Ctx.Values);
    if (tok === Tok.Identifier || tok === Tok.Comma) {
      const set = this.#identifiers();
      if (this.#consume(Ctx.Values).tok !== Tok.ClosedPar) {
        throw new Error(`found '${lit}', expected: ')'`);
      }
      return set;
    }
    if (tok === Tok.ClosedPar) {
      this.#consume(Ctx.Values);
      return new Set([""]);
    }
    throw new Error(`found '${lit}', expected: ',', ')' or identifier`);
  }

  #identifiers(): Set<string> {
    const set = new Set<string>();
    for (;;) {
      const { tok, lit } = this.#consume(Ctx.Values);
      if (tok === Tok.Identifier) {
        set.add(lit);
        const next = this.#lookahead(Ctx.Values);
        if (next.tok === Tok.Comma) continue;
        if (next.tok === Tok.ClosedPar) return set;
        throw new Error(`found '${next.lit}', expected: ',' or ')'`);
      }
      if (tok === Tok.Comma) {
        if (set.size === 0) set.add("");
        const next = this.#lookahead(Ctx.Values).tok;
        if (next === Tok.ClosedPar) {
          set.add("");
          return set;
        }
        if (next === Tok.Comma) {
          this.#consume(Ctx.Values);
          set.add("");
        }
        continue;
      }
      throw new Error(`found '${lit}', expected: ',', or identifier`);
    }
  }

  #exactValue(): Set<string> {
    const next = this.#lookahead(Ctx.Values).tok;
    if (next === Tok.End || next === Tok.Comma) return new Set([""]);
    const { tok, lit } = this.#consume(Ctx.Values);
    if (tok === Tok.Identifier) return new Set([lit]);
    throw new Error(`found '${lit}', expected: identifier`);
  }
}

/**
 * Parses the `labelSelector` string grammar. The empty string selects everything. Throws a
 * {@link SelectorError} (400) with Kubernetes' message on bad input.
 */
export function parseLabelSelector(selector: string): LabelSelector {
  const reqs = new Parser(selector).parse();
  return reqs.length === 0 ? LabelSelector.everything() : LabelSelector.of(reqs);
}

/** A selector requiring exactly the given labels (no validation, as `SelectorFromSet`). */
export function labelSelectorFromSet(
  set: Readonly<Record<string, string>> | undefined,
): LabelSelector {
  const entries = Object.entries(set ?? {});
  if (entries.length === 0) return LabelSelector.everything();
  return LabelSelector.of(entries.map(([key, v]) => ({ key, operator: "=", values: [v] })));
}

/**
 * Converts a `LabelSelector` object as `metav1.LabelSelectorAsSelector`: null or undefined
 * selects nothing, an empty object everything. Throws a {@link SelectorError} on an invalid
 * key, value or operator.
 */
export function labelSelectorFromObject(
  ps: LabelSelectorObject | null | undefined,
): LabelSelector {
  if (ps === null || ps === undefined) return LabelSelector.nothing();
  const matchLabels = Object.entries(ps.matchLabels ?? {});
  const exprs = ps.matchExpressions ?? [];
  if (matchLabels.length + exprs.length === 0) return LabelSelector.everything();
  const reqs: LabelRequirement[] = [];
  for (const [k, v] of matchLabels) reqs.push(newRequirement(k, "=", [v]));
  for (const expr of exprs) {
    let op: LabelOperator;
    switch (expr.operator) {
      case "In":
        op = "in";
        break;
      case "NotIn":
        op = "notin";
        break;
      case "Exists":
        op = "exists";
        break;
      case "DoesNotExist":
        op = "!";
        break;
      default:
        throw new SelectorError(
          `${goQuote(String(expr.operator))} is not a valid label selector operator`,
        );
    }
    reqs.push(newRequirement(expr.key, op, expr.values ?? []));
  }
  return LabelSelector.of(reqs);
}
