/**
 * Key ranges for prefix scans. SQLite compares TEXT keys by their UTF-8 bytes, and UTF-8
 * preserves code point order, so the smallest string greater than every string starting with a
 * prefix is the prefix with its last code point incremented.
 *
 * @module
 */

const MAX_CODE_POINT = 0x10ffff;
const SURROGATE_START = 0xd800;
const SURROGATE_END = 0xdfff;

/**
 * Returns the smallest key greater than every key that starts with `prefix` (the exclusive
 * upper bound of a prefix scan), or undefined when no such bound exists (empty prefix, or a
 * prefix made only of U+10FFFF), meaning the scan is unbounded above.
 */
export function prefixEnd(prefix: string): string | undefined {
  const points = Array.from(prefix, (c) => c.codePointAt(0) ?? 0);
  while (points.length > 0) {
    const last = points.pop() ?? 0;
    if (last < MAX_CODE_POINT) {
      let next = last + 1;
      if (next >= SURROGATE_START && next <= SURROGATE_END) next = SURROGATE_END + 1;
      points.push(next);
      return String.fromCodePoint(...points);
    }
  }
  return undefined;
}
