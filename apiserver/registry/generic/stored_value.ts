/**
 * The parsed objects of stored values, shared by the readers of one commit. Every listener of a
 * commit (the watch cache, the garbage collector) needs the committed object; instead of each
 * parsing the stored JSON text, they share one parse. When this process wrote the value, the
 * object the store encoded it from comes with the change (`ChangeEvent.decoded`) and
 * stands in for the parse, which would otherwise be one of the larger costs of a write.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";

/** How many recent parses {@link parseStoredValue} keeps (more than one group commit). */
const RECENT_PARSES = 512;
const recentParses = new Map<string, KubeObject>();

/**
 * The parsed object of a stored value, shared: every listener of one commit gets the same
 * object (`decoded`, the store's own, when the change carries it; else from a small cache of
 * recent parses) instead of parsing the value again. Read it, copy what you keep, never change
 * it. Throws SyntaxError for text that is not JSON.
 */
export function parseStoredValue(value: string, decoded?: unknown): KubeObject {
  if (decoded !== undefined) return decoded as KubeObject;
  let obj = recentParses.get(value);
  if (obj !== undefined) return obj;
  obj = JSON.parse(value) as KubeObject;
  if (recentParses.size >= RECENT_PARSES) {
    recentParses.delete(recentParses.keys().next().value!);
  }
  recentParses.set(value, obj);
  return obj;
}
