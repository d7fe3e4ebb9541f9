/**
 * Merges the OpenAPI v2 documents of extension API servers into ours, as kube-aggregator's
 * v2 aggregation does (local first, then the APIServices by priority): a path already present
 * keeps the first document's operations, and a definition already present keeps the first
 * document's schema (an extension built on the same types defines them the same way).
 *
 * @module
 */
type Json = Record<string, unknown>;

function record(v: unknown): Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? v as Json : {};
}

function sortedByKey(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0));
}

/** `local` with the paths and definitions of `remotes` it lacks (a new document). */
export function mergeOpenApiV2(local: Json, remotes: readonly Json[]): Json {
  if (remotes.length === 0) return local;
  const paths = { ...record(local.paths) };
  const definitions = { ...record(local.definitions) };
  for (const doc of remotes) {
    for (const [p, item] of Object.entries(record(doc.paths))) paths[p] ??= item;
    for (const [name, s] of Object.entries(record(doc.definitions))) definitions[name] ??= s;
  }
  return { ...local, paths: sortedByKey(paths), definitions: sortedByKey(definitions) };
}
