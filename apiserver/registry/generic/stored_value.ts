/**
 * The parsed objects of stored values, shared by the readers of one commit. Every listener of a
 * commit (the watch cache, the garbage collector) needs the committed object; instead of each
 * parsing the stored JSON text, they share one parse. While the store writes a value, the
 * object it encoded stands in for the parse ({@link writingValue}): in the create benchmark the
 * parse was the largest single item of the request path after SQLite itself.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";

/** How many recent parses {@link parseStoredValue} keeps (more than one group commit). */
const RECENT_PARSES = 512;
const recentParses = new Map<string, KubeObject>();
/** Values being written, with the object each was encoded from. */
const writing = new Map<string, KubeObject>();

/**
 * The parsed object of a stored value, shared: every listener of one commit gets the same
 * object (the store's own while it writes the value; else from a small cache of recent parses)
 * instead of parsing the value again. Read it, copy what you keep, never change it. Throws
 * SyntaxError for text that is not JSON.
 */
export function parseStoredValue(value: string): KubeObject {
  let obj = writing.get(value) ?? recentParses.get(value);
  if (obj !== undefined) return obj;
  obj = JSON.parse(value) as KubeObject;
  if (recentParses.size >= RECENT_PARSES) {
    recentParses.delete(recentParses.keys().next().value!);
  }
  recentParses.set(value, obj);
  return obj;
}

/**
 * Runs `write` (which stores `value`, the encoding of `obj`) with `obj` standing in for the
 * parse of `value` until it settles: the commit's listeners run before the write resolves.
 * `obj` must not change meanwhile.
 */
export async function writingValue<T>(
  value: string,
  obj: KubeObject,
  write: (value: string) => Promise<T>,
): Promise<T> {
  writing.set(value, obj);
  try {
    return await write(value);
  } finally {
    writing.delete(value);
  }
}
