/**
 * The lexer and parser of the `labelSelector` string grammar, after Kubernetes' `labels.Parse`.
 * The lexer works on the code units of the input the way Kubernetes' works on bytes: a NUL
 * reads as end of input.
 *
 * @module
 */
import { compareStrings } from "../api/validation/go_quote.ts";
import { isQualifiedName } from "../api/validation/identifiers.ts";
import {
  BINARY_OPERATORS,
  invalidMessage,
  type LabelOperator,
  type LabelRequirement,
  newRequirement,
} from "./label_requirement.ts";
import { SelectorError } from "./selector_error.ts";

/**
 * Parses the `labelSelector` string grammar into its requirements (unsorted). Throws a
 * {@link SelectorError} with Kubernetes' message on bad input.
 */
export function parseLabelRequirements(selector: string): LabelRequirement[] {
  return new Parser(selector).parse();
}

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
