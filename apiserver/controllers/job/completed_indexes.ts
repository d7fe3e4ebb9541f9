/**
 * The interval form of an Indexed Job's `status.completedIndexes` and `failedIndexes`
 * (`"1,3-5,7"`), as kube's `orderedIntervals` writes and reads it.
 *
 * @module
 */

/** Parses `"1,3-5"` into the set of indexes below `completions`. */
export function parseIndexes(text: unknown, completions: number): Set<number> {
  const out = new Set<number>();
  if (typeof text !== "string" || text === "") return out;
  for (const part of text.split(",")) {
    const [a, b] = part.split("-").map((s) => Number.parseInt(s, 10));
    if (!Number.isInteger(a)) continue;
    const end = Number.isInteger(b) ? b : a;
    for (let i = a; i <= end && i < completions; i++) out.add(i);
  }
  return out;
}

/** Formats a set of indexes as ordered intervals. */
export function formatIndexes(indexes: Iterable<number>): string {
  const sorted = [...new Set(indexes)].sort((x, y) => x - y);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    parts.push(i === j ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(",");
}
