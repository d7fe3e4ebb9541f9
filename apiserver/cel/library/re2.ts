/**
 * A linear-time regular expression engine with RE2 syntax (Thompson NFA simulated as a Pike VM).
 *
 * CEL's `matches`, `find` and `findAll` follow RE2: no backreferences or lookaround, Perl
 * classes, `(?flags)` groups, `\A`/`\z`, POSIX bracket classes and Unicode `\p{..}` classes.
 * Matching takes O(length of pattern * length of input) time whatever the pattern, so a
 * pathological expression such as `(a+)+$` cannot stall the server.
 *
 * @module
 */

/** Raised for a pattern that is not valid RE2 syntax. */
export class Re2SyntaxError extends Error {
  /** Creates the error for `pattern` with a short reason. */
  constructor(pattern: string, reason: string) {
    super(`error parsing regexp: ${reason}: \`${pattern}\``);
    this.name = "Re2SyntaxError";
  }
}

const MAX_REPEAT = 1000;
const MAX_PROGRAM = 50_000;

type Pred = (cp: number) => boolean;

type Node =
  | { k: "lit"; cp: number; fold: boolean }
  | { k: "class"; pred: Pred }
  | { k: "cat"; items: Node[] }
  | { k: "alt"; items: Node[] }
  | { k: "rep"; sub: Node; min: number; max: number; greedy: boolean }
  | { k: "group"; sub: Node; cap: number }
  | { k: "assert"; a: Assertion }
  | { k: "empty" };

type Assertion = "bol" | "eol" | "bot" | "eot" | "wb" | "nwb";

interface Flags {
  i: boolean;
  m: boolean;
  s: boolean;
  U: boolean;
}

const isWord = (cp: number) =>
  (cp >= 48 && cp <= 57) || (cp >= 65 && cp <= 90) || (cp >= 97 && cp <= 122) || cp === 95;
const isDigit = (cp: number) => cp >= 48 && cp <= 57;
const isSpace = (cp: number) => cp === 32 || (cp >= 9 && cp <= 13 && cp !== 11);

const POSIX: Record<string, Pred> = {
  alnum: (c) => isDigit(c) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122),
  alpha: (c) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122),
  ascii: (c) => c <= 0x7f,
  blank: (c) => c === 32 || c === 9,
  cntrl: (c) => c < 32 || c === 127,
  digit: isDigit,
  graph: (c) => c > 32 && c < 127,
  lower: (c) => c >= 97 && c <= 122,
  print: (c) => c >= 32 && c < 127,
  punct: (c) => c > 32 && c < 127 && !isWord(c) || c === 95,
  space: (c) => isSpace(c) || c === 11,
  upper: (c) => c >= 65 && c <= 90,
  word: isWord,
  xdigit: (c) => isDigit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102),
};

function unicodeClass(pattern: string, name: string): Pred {
  let re: RegExp;
  try {
    re = name === "Any" ? /[\s\S]/u : new RegExp(`^\\p{${name}}$`, "u");
  } catch {
    throw new Re2SyntaxError(pattern, `invalid character class range: \\p{${name}}`);
  }
  return (cp) => re.test(String.fromCodePoint(cp));
}

function foldPred(p: Pred): Pred {
  return (cp) => {
    if (p(cp)) return true;
    const s = String.fromCodePoint(cp);
    const l = s.toLowerCase(), u = s.toUpperCase();
    return (l.length === s.length && p(l.codePointAt(0)!)) ||
      (u.length === s.length && p(u.codePointAt(0)!));
  };
}

class Parser {
  pos = 0;
  caps = 0;
  readonly cps: number[];
  constructor(readonly pattern: string) {
    this.cps = Array.from(pattern, (c) => c.codePointAt(0)!);
  }

  fail(reason: string): never {
    throw new Re2SyntaxError(this.pattern, reason);
  }

  peek(): number | undefined {
    return this.cps[this.pos];
  }

  parse(): Node {
    const flags: Flags = { i: false, m: false, s: false, U: false };
    const n = this.alt(flags);
    if (this.pos < this.cps.length) this.fail("unexpected )");
    return n;
  }

  alt(flags: Flags): Node {
    const items = [this.concat(flags)];
    while (this.peek() === 0x7c) {
      this.pos++;
      items.push(this.concat(flags));
    }
    return items.length === 1 ? items[0] : { k: "alt", items };
  }

  concat(flags: Flags): Node {
    const items: Node[] = [];
    for (;;) {
      const c = this.peek();
      if (c === undefined || c === 0x7c || c === 0x29) break;
      const atom = this.atom(flags);
      if (atom === null) continue;
      items.push(this.repeat(atom, flags));
    }
    if (items.length === 0) return { k: "empty" };
    return items.length === 1 ? items[0] : { k: "cat", items };
  }

  repeat(atom: Node, flags: Flags): Node {
    let node = atom;
    let repeated = false;
    for (;;) {
      const c = this.peek();
      let min: number, max: number;
      if (c === 0x2a) [min, max] = [0, -1];
      else if (c === 0x2b) [min, max] = [1, -1];
      else if (c === 0x3f) [min, max] = [0, 1];
      else if (c === 0x7b) {
        const r = this.braces();
        if (!r) return node;
        [min, max] = r;
        this.pos--;
      } else return node;
      if (repeated) this.fail(`invalid nested repetition operator`);
      this.pos++;
      let greedy = !flags.U;
      if (this.peek() === 0x3f) {
        this.pos++;
        greedy = !greedy;
      }
      if (node.k === "empty" || (node.k === "assert" && false)) {
        this.fail("missing argument to repetition operator");
      }
      node = { k: "rep", sub: node, min, max, greedy };
      repeated = true;
    }
  }

  /** Parses `{n}`, `{n,}` or `{n,m}` at pos; leaves pos on the closing brace. */
  braces(): [number, number] | null {
    const start = this.pos;
    const rest = String.fromCodePoint(...this.cps.slice(start, start + 24));
    const m = /^\{(\d+)(,(\d*))?\}/.exec(rest);
    if (!m) return null;
    const min = Number(m[1]);
    const max = m[2] === undefined ? min : m[3] === "" ? -1 : Number(m[3]);
    if (min > MAX_REPEAT || max > MAX_REPEAT || (max !== -1 && max < min)) {
      this.fail(`invalid repeat count: ${m[0]}`);
    }
    this.pos = start + m[0].length;
    return [min, max];
  }

  atom(flags: Flags): Node | null {
    const c = this.cps[this.pos++];
    switch (c) {
      case 0x28: // (
        return this.group(flags);
      case 0x5b: // [
        return this.bracket(flags);
      case 0x2e: // .
        return { k: "class", pred: flags.s ? () => true : (cp) => cp !== 10 };
      case 0x5e: // ^
        return { k: "assert", a: flags.m ? "bol" : "bot" };
      case 0x24: // $
        return { k: "assert", a: flags.m ? "eol" : "eot" };
      case 0x5c: // backslash
        return this.escapeAtom(flags);
      case 0x2a:
      case 0x2b:
      case 0x3f:
        this.fail(`missing argument to repetition operator: \`${String.fromCodePoint(c)}\``);
        break;
      case 0x7b: {
        this.pos--;
        if (this.braces()) this.fail("missing argument to repetition operator");
        this.pos++;
        break;
      }
    }
    return this.literal(c, flags);
  }

  literal(cp: number, flags: Flags): Node {
    if (flags.i) {
      const s = String.fromCodePoint(cp);
      if (s.toLowerCase() !== s.toUpperCase()) return { k: "lit", cp, fold: true };
    }
    return { k: "lit", cp, fold: false };
  }

  group(flags: Flags): Node | null {
    if (this.peek() === 0x3f) {
      this.pos++;
      const c = this.peek();
      if (c === 0x50 || c === 0x3c) {
        // (?P<name>re) or (?<name>re)
        if (c === 0x50) this.pos++;
        if (this.peek() !== 0x3c) this.fail("invalid named capture");
        const end = this.cps.indexOf(0x3e, this.pos);
        if (end < 0) this.fail("invalid named capture");
        const name = String.fromCodePoint(...this.cps.slice(this.pos + 1, end));
        if (!/^[A-Za-z0-9_]+$/.test(name)) this.fail(`invalid named capture: ${name}`);
        this.pos = end + 1;
        return this.capture(flags);
      }
      // flags: (?i) (?i:re) (?-s)
      const local = { ...flags };
      let neg = false, any = false;
      for (;;) {
        const f = this.cps[this.pos++];
        if (f === undefined) this.fail("missing closing )");
        if (f === 0x2d) {
          if (neg) this.fail("invalid or unsupported Perl syntax");
          neg = true;
          continue;
        }
        if (f === 0x29 || f === 0x3a) {
          if (neg && !any) this.fail("invalid or unsupported Perl syntax");
          if (f === 0x29) {
            Object.assign(flags, local);
            return null;
          }
          const sub = this.alt(local);
          if (this.cps[this.pos++] !== 0x29) this.fail("missing closing )");
          return { k: "group", sub, cap: -1 };
        }
        const name = String.fromCodePoint(f);
        if (name !== "i" && name !== "m" && name !== "s" && name !== "U") {
          this.fail("invalid or unsupported Perl syntax");
        }
        local[name] = !neg;
        any = true;
      }
    }
    return this.capture(flags);
  }

  capture(flags: Flags): Node {
    const cap = ++this.caps;
    const sub = this.alt({ ...flags });
    if (this.cps[this.pos++] !== 0x29) this.fail("missing closing )");
    return { k: "group", sub, cap };
  }

  /** Parses an escape; returns a predicate or a single code point. */
  escape(inClass: boolean): Pred | number {
    const c = this.cps[this.pos++];
    if (c === undefined) this.fail("trailing backslash at end of expression");
    const ch = String.fromCodePoint(c);
    switch (ch) {
      case "d":
        return isDigit;
      case "D":
        return (x) => !isDigit(x);
      case "s":
        return isSpace;
      case "S":
        return (x) => !isSpace(x);
      case "w":
        return isWord;
      case "W":
        return (x) => !isWord(x);
      case "p":
      case "P": {
        let name: string;
        if (this.peek() === 0x7b) {
          const end = this.cps.indexOf(0x7d, this.pos);
          if (end < 0) this.fail("invalid character class range");
          name = String.fromCodePoint(...this.cps.slice(this.pos + 1, end));
          this.pos = end + 1;
        } else {
          const n = this.cps[this.pos++];
          if (n === undefined) this.fail("invalid character class range");
          name = String.fromCodePoint(n);
        }
        let negate = ch === "P";
        if (name.startsWith("^")) {
          negate = !negate;
          name = name.slice(1);
        }
        const p = unicodeClass(this.pattern, name);
        return negate ? (x) => !p(x) : p;
      }
      case "a":
        return 7;
      case "f":
        return 12;
      case "t":
        return 9;
      case "n":
        return 10;
      case "r":
        return 13;
      case "v":
        return 11;
      case "x": {
        let hex: string;
        if (this.peek() === 0x7b) {
          const end = this.cps.indexOf(0x7d, this.pos);
          if (end < 0) this.fail("invalid escape sequence");
          hex = String.fromCodePoint(...this.cps.slice(this.pos + 1, end));
          this.pos = end + 1;
        } else {
          hex = String.fromCodePoint(...this.cps.slice(this.pos, this.pos + 2));
          this.pos += 2;
          if (hex.length !== 2) this.fail("invalid escape sequence");
        }
        if (!/^[0-9a-fA-F]{1,8}$/.test(hex)) this.fail("invalid escape sequence");
        const v = parseInt(hex, 16);
        if (v > 0x10ffff) this.fail("invalid escape sequence");
        return v;
      }
    }
    if (c >= 0x30 && c <= 0x37) {
      // octal \0, \012; \1-\9 as backreferences are not supported
      if (c !== 0x30 && !(this.cps[this.pos] >= 0x30 && this.cps[this.pos] <= 0x37)) {
        this.fail(`invalid escape sequence: \\${ch}`);
      }
      let v = c - 0x30, n = 1;
      while (n < 3 && this.cps[this.pos] >= 0x30 && this.cps[this.pos] <= 0x37) {
        v = v * 8 + this.cps[this.pos++] - 0x30;
        n++;
      }
      return v;
    }
    if (c < 0x80 && !isWord(c)) return c; // escaped punctuation
    if (!inClass && (ch === "b" || ch === "B" || ch === "A" || ch === "z")) return -1;
    this.fail(`invalid escape sequence: \\${ch}`);
  }

  escapeAtom(flags: Flags): Node | null {
    const c = this.peek();
    if (c === 0x62) return this.pos++, { k: "assert", a: "wb" };
    if (c === 0x42) return this.pos++, { k: "assert", a: "nwb" };
    if (c === 0x41) return this.pos++, { k: "assert", a: "bot" };
    if (c === 0x7a) return this.pos++, { k: "assert", a: "eot" };
    if (c === 0x51) {
      // \Q...\E literal text
      this.pos++;
      let end = this.pos;
      while (end < this.cps.length && !(this.cps[end] === 0x5c && this.cps[end + 1] === 0x45)) {
        end++;
      }
      const items: Node[] = this.cps.slice(this.pos, end).map((cp) => this.literal(cp, flags));
      this.pos = Math.min(end + 2, this.cps.length);
      if (items.length === 0) return null;
      return items.length === 1 ? items[0] : { k: "cat", items };
    }
    const e = this.escape(false);
    if (typeof e === "number") return this.literal(e, flags);
    return { k: "class", pred: flags.i ? foldPred(e) : e };
  }

  bracket(flags: Flags): Node {
    let negate = false;
    if (this.peek() === 0x5e) {
      this.pos++;
      negate = true;
    }
    const preds: Pred[] = [];
    const ranges: number[] = [];
    let first = true;
    for (;;) {
      const c = this.cps[this.pos];
      if (c === undefined) this.fail("missing closing ]");
      if (c === 0x5d && !first) {
        this.pos++;
        break;
      }
      first = false;
      if (c === 0x5b && this.cps[this.pos + 1] === 0x3a) {
        const end = this.pattern.indexOf(":]", 0);
        const rest = String.fromCodePoint(...this.cps.slice(this.pos));
        const m = /^\[:(\^?)([a-z]+):\]/.exec(rest);
        if (m && end >= 0) {
          const p = POSIX[m[2]];
          if (!p) this.fail(`invalid character class range: ${m[0]}`);
          preds.push(m[1] ? (x) => !p(x) : p);
          this.pos += m[0].length;
          continue;
        }
      }
      let lo: number;
      this.pos++;
      if (c === 0x5c) {
        const e = this.escape(true);
        if (typeof e !== "number") {
          preds.push(e);
          continue;
        }
        lo = e;
      } else lo = c;
      let hi = lo;
      if (
        this.peek() === 0x2d && this.cps[this.pos + 1] !== 0x5d &&
        this.cps[this.pos + 1] !== undefined
      ) {
        this.pos++;
        const d = this.cps[this.pos++];
        if (d === 0x5c) {
          const e = this.escape(true);
          if (typeof e !== "number") this.fail("invalid character class range");
          hi = e;
        } else hi = d;
        if (hi < lo) this.fail("invalid character class range");
      }
      ranges.push(lo, hi);
    }
    const inRanges: Pred = (cp) => {
      for (let i = 0; i < ranges.length; i += 2) {
        if (cp >= ranges[i] && cp <= ranges[i + 1]) return true;
      }
      for (const p of preds) if (p(cp)) return true;
      return false;
    };
    const base = flags.i ? foldPred(inRanges) : inRanges;
    return { k: "class", pred: negate ? (cp) => !base(cp) : base };
  }
}

// Program instructions.
const CHAR = 0, MATCH = 1, SPLIT = 2, JMP = 3, SAVE = 4, ASSERT = 5;
type Inst =
  | { op: typeof CHAR; pred: Pred }
  | { op: typeof MATCH }
  | { op: typeof SPLIT; x: number; y: number }
  | { op: typeof JMP; x: number }
  | { op: typeof SAVE; n: number }
  | { op: typeof ASSERT; a: Assertion };

class Compiler {
  prog: Inst[] = [];
  constructor(readonly pattern: string) {}

  emit(i: Inst): number {
    if (this.prog.length >= MAX_PROGRAM) {
      throw new Re2SyntaxError(this.pattern, "expression too large");
    }
    this.prog.push(i);
    return this.prog.length - 1;
  }

  node(n: Node): void {
    switch (n.k) {
      case "empty":
        return;
      case "lit": {
        const cp = n.cp;
        if (n.fold) {
          const s = String.fromCodePoint(cp);
          const l = s.toLowerCase().codePointAt(0)!, u = s.toUpperCase().codePointAt(0)!;
          this.emit({ op: CHAR, pred: (x) => x === cp || x === l || x === u });
        } else this.emit({ op: CHAR, pred: (x) => x === cp });
        return;
      }
      case "class":
        this.emit({ op: CHAR, pred: n.pred });
        return;
      case "assert":
        this.emit({ op: ASSERT, a: n.a });
        return;
      case "cat":
        for (const i of n.items) this.node(i);
        return;
      case "group":
        if (n.cap < 0) return this.node(n.sub);
        this.emit({ op: SAVE, n: 2 * n.cap });
        this.node(n.sub);
        this.emit({ op: SAVE, n: 2 * n.cap + 1 });
        return;
      case "alt": {
        const jumps: number[] = [];
        for (let i = 0; i < n.items.length; i++) {
          if (i < n.items.length - 1) {
            const split = this.emit({ op: SPLIT, x: 0, y: 0 });
            (this.prog[split] as { x: number }).x = split + 1;
            this.node(n.items[i]);
            jumps.push(this.emit({ op: JMP, x: 0 }));
            (this.prog[split] as { y: number }).y = this.prog.length;
          } else this.node(n.items[i]);
        }
        for (const j of jumps) (this.prog[j] as { x: number }).x = this.prog.length;
        return;
      }
      case "rep": {
        for (let i = 0; i < n.min; i++) this.node(n.sub);
        if (n.max === -1) {
          // x*: L: split body, out; body; jmp L
          const split = this.emit({ op: SPLIT, x: 0, y: 0 });
          this.node(n.sub);
          this.emit({ op: JMP, x: split });
          this.setSplit(split, split + 1, this.prog.length, n.greedy);
        } else {
          const splits: number[] = [];
          for (let i = n.min; i < n.max; i++) {
            splits.push(this.emit({ op: SPLIT, x: 0, y: 0 }));
            this.node(n.sub);
          }
          for (const s of splits) this.setSplit(s, s + 1, this.prog.length, n.greedy);
        }
        return;
      }
    }
  }

  setSplit(at: number, body: number, out: number, greedy: boolean): void {
    const s = this.prog[at] as { x: number; y: number };
    if (greedy) [s.x, s.y] = [body, out];
    else [s.x, s.y] = [out, body];
  }
}

interface Thread {
  pc: number;
  caps: number[];
}

/** A compiled RE2 pattern. Immutable and safe to share. */
export class Re2 {
  readonly #prog: Inst[];
  readonly #ncap: number;
  /** The source pattern. */
  readonly source: string;

  /** Compiles `pattern`; throws {@link Re2SyntaxError} when it is not valid RE2. */
  constructor(pattern: string) {
    const parser = new Parser(pattern);
    const tree = parser.parse();
    const c = new Compiler(pattern);
    c.emit({ op: SAVE, n: 0 });
    c.node(tree);
    c.emit({ op: SAVE, n: 1 });
    c.emit({ op: MATCH });
    this.#prog = c.prog;
    this.#ncap = 2 * (parser.caps + 1);
    this.source = pattern;
  }

  /** Number of instructions, a measure of the pattern's cost. */
  get size(): number {
    return this.#prog.length;
  }

  /** Reports whether the pattern matches anywhere in `input`. */
  test(input: string): boolean {
    return this.#exec(toCodePoints(input), 0, true) !== null;
  }

  /** Returns the leftmost-first match as code point offsets [start, end, group1s, group1e...]. */
  exec(input: string): string[] | null {
    const cps = toCodePoints(input);
    const caps = this.#exec(cps, 0, false);
    if (!caps) return null;
    const out: string[] = [];
    for (let i = 0; i < caps.length; i += 2) {
      out.push(caps[i] < 0 ? "" : String.fromCodePoint(...cps.slice(caps[i], caps[i + 1])));
    }
    return out;
  }

  /** Returns up to `limit` (all when negative) non-overlapping matches of the whole pattern. */
  findAll(input: string, limit = -1): string[] {
    const cps = toCodePoints(input);
    const out: string[] = [];
    let pos = 0, prevEnd = -1;
    while (pos <= cps.length && (limit < 0 || out.length < limit)) {
      const caps = this.#exec(cps, pos, false);
      if (!caps) break;
      const [s, e] = caps;
      if (e === s && s === prevEnd) {
        pos = s + 1;
        continue;
      }
      out.push(String.fromCodePoint(...cps.slice(s, e)));
      prevEnd = e;
      pos = e > s ? e : e + 1;
    }
    return out;
  }

  #exec(input: number[], start: number, boolOnly: boolean): number[] | null {
    const prog = this.#prog;
    const n = input.length;
    let clist: Thread[] = [];
    let nlist: Thread[] = [];
    const mark = new Int32Array(prog.length).fill(-1);
    let gen = 0;
    let matched: number[] | null = null;
    const ncap = this.#ncap;

    const add = (list: Thread[], pc0: number, caps0: number[], pos: number) => {
      const stack: Thread[] = [{ pc: pc0, caps: caps0 }];
      while (stack.length) {
        const { pc, caps } = stack.pop()!;
        if (mark[pc] === gen) continue;
        mark[pc] = gen;
        const inst = prog[pc];
        switch (inst.op) {
          case JMP:
            stack.push({ pc: inst.x, caps });
            break;
          case SPLIT:
            stack.push({ pc: inst.y, caps }, { pc: inst.x, caps });
            break;
          case SAVE: {
            const c = caps.slice();
            c[inst.n] = pos;
            stack.push({ pc: pc + 1, caps: c });
            break;
          }
          case ASSERT:
            if (assertAt(inst.a, input, pos)) stack.push({ pc: pc + 1, caps });
            break;
          default:
            list.push({ pc, caps });
        }
      }
    };

    const empty = new Array<number>(ncap).fill(-1);
    for (let pos = start; pos <= n; pos++) {
      if (matched === null) {
        gen++;
        // re-mark threads already in clist so the new start thread has lowest priority
        for (const t of clist) mark[t.pc] = gen;
        add(clist, 0, empty, pos);
      }
      if (clist.length === 0) {
        if (matched !== null) break;
        continue;
      }
      gen++;
      const cp = pos < n ? input[pos] : -1;
      for (let i = 0; i < clist.length; i++) {
        const t = clist[i];
        const inst = prog[t.pc];
        if (inst.op === MATCH) {
          matched = t.caps;
          if (boolOnly) return matched;
          break; // cut lower-priority threads
        }
        if (inst.op === CHAR && cp >= 0 && inst.pred(cp)) add(nlist, t.pc + 1, t.caps, pos + 1);
      }
      [clist, nlist] = [nlist, clist];
      nlist.length = 0;
    }
    return matched;
  }
}

function assertAt(a: Assertion, input: number[], pos: number): boolean {
  switch (a) {
    case "bot":
      return pos === 0;
    case "eot":
      return pos === input.length;
    case "bol":
      return pos === 0 || input[pos - 1] === 10;
    case "eol":
      return pos === input.length || input[pos] === 10;
    case "wb":
    case "nwb": {
      const b = (pos > 0 && isWord(input[pos - 1])) !== (pos < input.length && isWord(input[pos]));
      return a === "wb" ? b : !b;
    }
  }
}

function toCodePoints(s: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s.codePointAt(i)!;
    out.push(c);
    if (c > 0xffff) i++;
  }
  return out;
}

const cache = new Map<string, Re2 | Re2SyntaxError>();
const CACHE_MAX = 1000;

/** Compiles `pattern` with a bounded cache; throws {@link Re2SyntaxError} for invalid syntax. */
export function compileRe2(pattern: string): Re2 {
  let r = cache.get(pattern);
  if (r === undefined) {
    try {
      r = new Re2(pattern);
    } catch (e) {
      if (!(e instanceof Re2SyntaxError)) throw e;
      r = e;
    }
    if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
    cache.set(pattern, r);
  }
  if (r instanceof Re2SyntaxError) throw r;
  return r;
}
