/**
 * RE2 regular expressions for CEL's `matches`, `find` and `findAll`, on the `re2js` engine
 * (a port of Go's `regexp`): Go's syntax, Go's error messages and linear-time matching, so a
 * pathological expression such as `(a+)+$` cannot stall the server. Compiled patterns are
 * kept in a bounded least-recently-used cache.
 *
 * @module
 */
import { RE2JS, RE2JSException } from "re2js";
import { LruCache } from "../lru_cache.ts";

/** Raised for a pattern that is not valid RE2 syntax; the message is Go's. */
export class Re2SyntaxError extends Error {
  /** Creates the error with the engine's message (`error parsing regexp: ...`). */
  constructor(message: string) {
    super(message);
    this.name = "Re2SyntaxError";
  }
}

/**
 * The longest pattern accepted, in UTF-16 code units. Compiling takes time in proportion to a
 * pattern's length and is not part of CEL's cost, so the bound keeps one compile short.
 */
export const MAX_PATTERN_LENGTH = 10_000;

/** A compiled RE2 pattern. Immutable and safe to share. */
export class Re2 {
  readonly #re: RE2JS;
  /** The source pattern. */
  readonly source: string;

  /**
   * Compiles `pattern`; throws {@link Re2SyntaxError} when it is not valid RE2 or is longer
   * than {@link MAX_PATTERN_LENGTH} (Go's "expression too large").
   */
  constructor(pattern: string) {
    if (pattern.length > MAX_PATTERN_LENGTH) {
      throw new Re2SyntaxError(
        `error parsing regexp: expression too large: \`${pattern.slice(0, 64)}...\``,
      );
    }
    try {
      this.#re = RE2JS.compile(pattern);
    } catch (e) {
      if (e instanceof RE2JSException) throw new Re2SyntaxError(e.message);
      throw e;
    }
    this.source = pattern;
  }

  /** Reports whether the pattern matches anywhere in `input`. */
  test(input: string): boolean {
    return this.#re.test(input);
  }

  /** Returns the leftmost-first match, or "" when there is none (Go's `FindString`). */
  find(input: string): string {
    const m = this.#re.matcher(input);
    return m.find() ? input.slice(m.start(), m.end()) : "";
  }

  /**
   * Returns up to `limit` (all when negative) successive non-overlapping matches, as Go's
   * `FindAllString`: an empty match right after the previous match is skipped.
   */
  findAll(input: string, limit = -1): string[] {
    const out: string[] = [];
    if (limit === 0) return out;
    const m = this.#re.matcher(input);
    let prevEnd = -1;
    while ((limit < 0 || out.length < limit) && m.find()) {
      const start = m.start(), end = m.end();
      if (!(start === end && start === prevEnd)) out.push(input.slice(start, end));
      prevEnd = end;
    }
    return out;
  }
}

/** Compiled patterns kept, and the total length of the patterns kept. */
const CACHE_ENTRIES = 500;
const CACHE_PATTERN_CHARS = 200_000;
const cache = new LruCache<string, Re2 | Re2SyntaxError>(CACHE_ENTRIES, CACHE_PATTERN_CHARS);

/**
 * Compiles `pattern` through an LRU cache bounded in entries and in total pattern length; throws
 * {@link Re2SyntaxError} as {@link Re2}'s constructor does.
 */
export function compileRe2(pattern: string): Re2 {
  let r = cache.get(pattern);
  if (r === undefined) {
    try {
      r = new Re2(pattern);
    } catch (e) {
      if (!(e instanceof Re2SyntaxError)) throw e;
      r = e;
    }
    cache.set(pattern, r, Math.max(1, pattern.length));
  }
  if (r instanceof Re2SyntaxError) throw r;
  return r;
}
