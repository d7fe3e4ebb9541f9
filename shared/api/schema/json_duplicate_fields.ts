/**
 * findJsonDuplicateFields: the paths of object keys that occur more than once in a JSON text,
 * which JSON.parse silently collapses (the last one wins).
 *
 * @module
 */

interface Frame {
  /** Path of this container. */
  path: string;
  /** Keys seen (objects). */
  keys?: Set<string>;
  /** Next element index (arrays). */
  index: number;
  /** The key whose value is being read (objects). */
  key?: string;
}

function child(frame: Frame): string {
  if (frame.keys) {
    const k = frame.key ?? "";
    return frame.path === "" ? k : `${frame.path}.${k}`;
  }
  return `${frame.path}[${frame.index}]`;
}

/**
 * The index of the quote that ends the string starting at `open` (`text.length` when none
 * does): the next quote not escaped by an odd run of backslashes. indexOf skips a long string
 * value in one call instead of a loop over its characters.
 */
function closingQuote(text: string, open: number): number {
  for (let from = open + 1;;) {
    const q = text.indexOf('"', from);
    if (q < 0) return text.length;
    let b = q - 1;
    while (b > open && text.charCodeAt(b) === 0x5c /* backslash */) b--;
    if ((q - 1 - b) % 2 === 0) return q;
    from = q + 1;
  }
}

/**
 * Returns the path of every duplicated key of `text` (for example `metadata.name` or
 * `spec.containers[0].image`), in order of appearance. `text` must be valid JSON (parse it
 * first); on malformed input the result is best effort.
 */
export function findJsonDuplicateFields(text: string): string[] {
  const out: string[] = [];
  const stack: Frame[] = [];
  const n = text.length;
  let expectKey = false;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const j = closingQuote(text, i);
      if (expectKey) {
        const raw = text.slice(i, j + 1);
        let key = raw.slice(1, -1);
        if (key.includes("\\")) {
          try {
            key = JSON.parse(raw);
          } catch {
            // keep the raw key
          }
        }
        const top = stack[stack.length - 1];
        if (top.keys!.has(key)) out.push(child({ ...top, key }));
        else top.keys!.add(key);
        top.key = key;
        expectKey = false;
      }
      i = j + 1;
      continue;
    }
    if (c === 0x7b /* { */) {
      const parent = stack[stack.length - 1];
      stack.push({ path: parent ? child(parent) : "", keys: new Set(), index: 0 });
      expectKey = true;
    } else if (c === 0x5b /* [ */) {
      const parent = stack[stack.length - 1];
      stack.push({ path: parent ? child(parent) : "", index: 0 });
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
      expectKey = false;
    } else if (c === 0x2c /* , */) {
      const top = stack[stack.length - 1];
      if (top?.keys) expectKey = true;
      else if (top) top.index++;
    }
    i++;
  }
  return out;
}
