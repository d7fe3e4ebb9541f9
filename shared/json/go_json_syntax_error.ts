/**
 * goJsonSyntaxError: the message Go's encoding/json gives for a document that is not valid
 * JSON (`invalid character 'x' looking for beginning of value`, `unexpected end of JSON input`),
 * so that errors about client bodies read as kube-apiserver's do. It walks the bytes with the
 * same states as Go's scanner and stops at the first byte Go would reject.
 *
 * @module
 */

/** What is being read: Go's parse states plus the token a state is inside. */
type Mode =
  | "value" // a value must start here
  | "valueOrEnd" // after `[`: a value or `]`
  | "keyOrEnd" // after `{`: a key or `}`
  | "key" // after `,` in an object: a key
  | "afterValue"; // a value ended: a delimiter, the enclosing close, or the end

const END = "unexpected end of JSON input";

const LITERALS: Record<number, string> = { 0x74: "true", 0x66: "false", 0x6e: "null" };

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isHex(c: number): boolean {
  return isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
}

const GO_ESCAPES: Record<number, string> = {
  0x07: "\\a",
  0x08: "\\b",
  0x0c: "\\f",
  0x0a: "\\n",
  0x0d: "\\r",
  0x09: "\\t",
  0x0b: "\\v",
  0x5c: "\\\\",
};

/** One byte as Go's quoteChar renders it: `'x'`, `'\n'`, `'\x00'`, `'\u0080'`, `'Ã'`. */
export function goQuoteChar(c: number): string {
  if (c === 0x27) return "'\\''";
  if (c === 0x22) return "'\"'";
  if (GO_ESCAPES[c]) return `'${GO_ESCAPES[c]}'`;
  if (c < 0x20 || c === 0x7f) return `'\\x${c.toString(16).padStart(2, "0")}'`;
  // A byte above 0x7f is the rune of the same number; Go prints the unprintable ones escaped.
  if ((c >= 0x80 && c <= 0xa0) || c === 0xad) return `'\\u${c.toString(16).padStart(4, "0")}'`;
  return `'${String.fromCharCode(c)}'`;
}

function invalid(c: number, context: string): string {
  return `invalid character ${goQuoteChar(c)} ${context}`;
}

/** The scanner: a stack of open containers and the position in the input. */
class Scanner {
  readonly stack: ("object" | "array")[] = [];
  /** Inside an object, whether the value just read was a key. */
  keyDone = false;
  i = 0;
  constructor(readonly b: Uint8Array) {}

  /** Reads a string starting at `"`; returns an error message or undefined. */
  string(): string | undefined {
    const b = this.b;
    for (this.i++; this.i < b.length; this.i++) {
      const c = b[this.i];
      if (c === 0x22) {
        this.i++;
        return undefined;
      }
      if (c < 0x20) return invalid(c, "in string literal");
      if (c !== 0x5c) continue;
      const e = b[++this.i];
      if (e === undefined) return END;
      if (e === 0x75) {
        for (let k = 0; k < 4; k++) {
          const h = b[++this.i];
          if (h === undefined) return END;
          if (!isHex(h)) return invalid(h, "in \\u hexadecimal character escape");
        }
      } else if (!'bfnrt\\/"'.includes(String.fromCharCode(e))) {
        return invalid(e, "in string escape code");
      }
    }
    return END;
  }

  /** Reads a number starting at `-` or a digit. */
  number(): string | undefined {
    const b = this.b;
    if (b[this.i] === 0x2d) {
      this.i++;
      const c = b[this.i] ?? 0x20;
      if (!isDigit(c)) return invalid(c, "in numeric literal");
    }
    if (b[this.i] === 0x30) this.i++;
    else while (isDigit(b[this.i])) this.i++;
    if (b[this.i] === 0x2e) {
      this.i++;
      const c = b[this.i] ?? 0x20;
      if (!isDigit(c)) return invalid(c, "after decimal point in numeric literal");
      while (isDigit(b[this.i])) this.i++;
    }
    if (b[this.i] === 0x65 || b[this.i] === 0x45) {
      this.i++;
      if (b[this.i] === 0x2b || b[this.i] === 0x2d) this.i++;
      const c = b[this.i] ?? 0x20;
      if (!isDigit(c)) return invalid(c, "in exponent of numeric literal");
      while (isDigit(b[this.i])) this.i++;
    }
    return undefined;
  }

  /** Reads `true`, `false` or `null`; at the end of input Go steps a space. */
  literal(word: string): string | undefined {
    for (let k = 1; k < word.length; k++) {
      const c = this.b[this.i + k] ?? 0x20;
      if (c !== word.charCodeAt(k)) {
        return invalid(c, `in literal ${word} (expecting '${word[k]}')`);
      }
    }
    this.i += word.length;
    return undefined;
  }
}

/** Starts a value at `c`; returns the next mode or an error message. */
function beginValue(s: Scanner, c: number): Mode | { error: string } {
  if (c === 0x7b) {
    s.stack.push("object");
    s.i++;
    return "keyOrEnd";
  }
  if (c === 0x5b) {
    s.stack.push("array");
    s.i++;
    return "valueOrEnd";
  }
  let err: string | undefined;
  if (c === 0x22) err = s.string();
  else if (c === 0x2d || isDigit(c)) err = s.number();
  else if (LITERALS[c]) err = s.literal(LITERALS[c]);
  else return { error: invalid(c, "looking for beginning of value") };
  return err ? { error: err } : "afterValue";
}

/** Handles `c` after a value: a delimiter, a close, or (at the top) nothing but space. */
function afterValue(s: Scanner, c: number): Mode | { error: string } {
  const top = s.stack.at(-1);
  if (top === undefined) return { error: invalid(c, "after top-level value") };
  if (top === "array") {
    if (c === 0x2c) return s.i++, "value";
    if (c === 0x5d) return s.stack.pop(), s.i++, "afterValue";
    return { error: invalid(c, "after array element") };
  }
  if (s.keyDone) {
    if (c !== 0x3a) return { error: invalid(c, "after object key") };
    s.keyDone = false;
    return s.i++, "value";
  }
  if (c === 0x2c) return s.i++, "key";
  if (c === 0x7d) return s.stack.pop(), s.i++, "afterValue";
  return { error: invalid(c, "after object key:value pair") };
}

function step(s: Scanner, mode: Mode, c: number): Mode | { error: string } {
  switch (mode) {
    case "value":
      return beginValue(s, c);
    case "valueOrEnd":
      if (c === 0x5d) return s.stack.pop(), s.i++, "afterValue";
      return beginValue(s, c);
    case "keyOrEnd":
    case "key": {
      if (mode === "keyOrEnd" && c === 0x7d) return s.stack.pop(), s.i++, "afterValue";
      if (c !== 0x22) return { error: invalid(c, "looking for beginning of object key string") };
      const err = s.string();
      if (err) return { error: err };
      s.keyDone = true;
      return "afterValue";
    }
    case "afterValue":
      return afterValue(s, c);
  }
}

/**
 * The error Go's `json.Unmarshal` reports for `bytes`, or undefined when they are valid JSON.
 * Non-ASCII bytes are taken one by one, as Go's scanner does.
 */
export function goJsonSyntaxError(bytes: Uint8Array): string | undefined {
  const s = new Scanner(bytes);
  let mode: Mode = "value";
  while (s.i < bytes.length) {
    const c = bytes[s.i];
    if (isSpace(c)) {
      s.i++;
      continue;
    }
    const next = step(s, mode, c);
    if (typeof next === "object") return next.error;
    mode = next;
  }
  // Go's end of input: done if a top-level value ended, else "unexpected end".
  if (mode === "afterValue" && s.stack.length === 0) return undefined;
  return END;
}
