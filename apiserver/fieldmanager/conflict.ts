/**
 * Apply conflicts: fields another manager owns with a different value. `ConflictError` lists
 * them; `conflictStatusError` turns them into kube-apiserver's 409 answer.
 *
 * @module
 */
import { StatusError } from "../../shared/errors/status_error.ts";
import { type Path, pathToString } from "./path_element.ts";

/** One conflicting field. */
export interface Conflict {
  /** The manager identifier (a JSON object, see managerIdentifier) or a plain name. */
  manager: string;
  path: Path;
}

/** Thrown by apply without force when fields conflict. */
export class ConflictError extends Error {
  readonly conflicts: readonly Conflict[];
  constructor(conflicts: readonly Conflict[]) {
    super(conflictMessage(conflicts));
    this.name = "ConflictError";
    this.conflicts = conflicts;
  }
}

/** How a manager is named in messages: `"name"`, with subresource and, for updates, version. */
export function printManager(manager: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(manager);
    if (typeof entry !== "object" || entry === null) throw new Error("not an object");
  } catch {
    return JSON.stringify(manager);
  }
  let s = JSON.stringify(String(entry.manager ?? ""));
  if (entry.subresource) s += ` with subresource ${JSON.stringify(String(entry.subresource))}`;
  if (entry.operation === "Update") {
    s += ` using ${entry.apiVersion ?? ""}`;
    if (typeof entry.time === "string") s += ` at ${entry.time}`;
  }
  return s;
}

function conflictMessage(conflicts: readonly Conflict[]): string {
  if (conflicts.length === 1) {
    return `Apply failed with 1 conflict: conflict with ${printManager(conflicts[0].manager)}: ${
      pathToString(conflicts[0].path)
    }`;
  }
  const byManager = new Map<string, string[]>();
  for (const c of conflicts) {
    const list = byManager.get(c.manager) ?? [];
    list.push(pathToString(c.path));
    byManager.set(c.manager, list);
  }
  const lines: string[] = [];
  for (const m of [...byManager.keys()].sort()) {
    lines.push(`conflicts with ${printManager(m)}:`);
    for (const p of byManager.get(m)!) lines.push(`- ${p}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join("\n")}`;
}

/** The 409 Conflict kube-apiserver answers: one `FieldManagerConflict` cause per field. */
export function conflictStatusError(err: ConflictError): StatusError {
  return new StatusError({
    code: 409,
    reason: "Conflict",
    message: err.message,
    details: {
      causes: err.conflicts.map((c) => ({
        reason: "FieldManagerConflict",
        message: `conflict with ${printManager(c.manager)}`,
        field: pathToString(c.path),
      })),
    },
  });
}
