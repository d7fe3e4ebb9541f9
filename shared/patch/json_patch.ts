/**
 * JSON Patch (RFC 6902): apply a list of operations to a JSON document, including `test`
 * operations as preconditions. Failures throw JsonPatchError; the document is never changed
 * in place.
 *
 * @module
 */
import { deepEqual } from "../json/deep_equal.ts";

/** One RFC 6902 operation. */
export interface JsonPatchOperation {
  op: "add" | "remove" | "replace" | "move" | "copy" | "test";
  path: string;
  value?: unknown;
  from?: string;
}

/** Why a patch could not be applied. */
export class JsonPatchError extends Error {
  /**
   * `invalid`: the patch itself is malformed (400); `failed`: it does not apply to this
   * document (a failed test, a missing path; 422).
   */
  constructor(message: string, readonly kind: "invalid" | "failed") {
    super(message);
    this.name = "JsonPatchError";
  }
}

/** Parses a JSON Pointer (RFC 6901) into reference tokens. */
export function parsePointer(pointer: string): string[] {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) {
    throw new JsonPatchError(`invalid JSON pointer ${JSON.stringify(pointer)}`, "invalid");
  }
  return pointer.slice(1).split("/").map((t) => {
    if (/~[^01]|~$/.test(t)) {
      throw new JsonPatchError(`invalid JSON pointer ${JSON.stringify(pointer)}`, "invalid");
    }
    return t.replace(/~1/g, "/").replace(/~0/g, "~");
  });
}

/** Validates the shape of a patch document and returns its operations. */
export function decodeJsonPatch(doc: unknown): JsonPatchOperation[] {
  if (!Array.isArray(doc)) {
    throw new JsonPatchError("json patch must be an array of operations", "invalid");
  }
  return doc.map((op, i) => {
    if (typeof op !== "object" || op === null || Array.isArray(op)) {
      throw new JsonPatchError(`operation ${i} is not an object`, "invalid");
    }
    const o = op as Record<string, unknown>;
    const kinds = ["add", "remove", "replace", "move", "copy", "test"];
    if (typeof o.op !== "string" || !kinds.includes(o.op)) {
      throw new JsonPatchError(`Unexpected kind: ${String(o.op)}`, "invalid");
    }
    if (typeof o.path !== "string") {
      throw new JsonPatchError(`operation ${i} (${o.op}) has no path`, "invalid");
    }
    parsePointer(o.path);
    if (["add", "replace", "test"].includes(o.op) && !("value" in o)) {
      throw new JsonPatchError(`operation ${i} (${o.op}) has no value`, "invalid");
    }
    if (["move", "copy"].includes(o.op)) {
      if (typeof o.from !== "string") {
        throw new JsonPatchError(`operation ${i} (${o.op}) has no from`, "invalid");
      }
      parsePointer(o.from);
    }
    return o as unknown as JsonPatchOperation;
  });
}

type Container = Record<string, unknown> | unknown[];

function isContainer(v: unknown): v is Container {
  return typeof v === "object" && v !== null;
}

function arrayIndex(arr: unknown[], token: string, forAdd: boolean, path: string): number {
  if (forAdd && token === "-") return arr.length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) {
    throw new JsonPatchError(`invalid array index ${JSON.stringify(token)} in ${path}`, "failed");
  }
  const i = Number(token);
  if (i > arr.length || (!forAdd && i === arr.length)) {
    throw new JsonPatchError(`array index ${i} out of bounds in ${path}`, "failed");
  }
  return i;
}

/** Resolves the parent container and last token of a path. */
function parentOf(doc: unknown, path: string): { parent: Container; key: string } {
  const tokens = parsePointer(path);
  let cur: unknown = doc;
  for (const t of tokens.slice(0, -1)) {
    if (Array.isArray(cur)) cur = cur[arrayIndex(cur, t, false, path)];
    else if (isContainer(cur) && Object.hasOwn(cur, t)) cur = (cur as Record<string, unknown>)[t];
    else throw new JsonPatchError(`path ${path} does not exist`, "failed");
  }
  if (!isContainer(cur)) throw new JsonPatchError(`path ${path} does not exist`, "failed");
  return { parent: cur, key: tokens[tokens.length - 1] };
}

function get(doc: unknown, path: string): unknown {
  let cur = doc;
  for (const t of parsePointer(path)) {
    if (Array.isArray(cur)) cur = cur[arrayIndex(cur, t, false, path)];
    else if (isContainer(cur) && Object.hasOwn(cur, t)) cur = (cur as Record<string, unknown>)[t];
    else throw new JsonPatchError(`path ${path} does not exist`, "failed");
  }
  return cur;
}

function add(doc: unknown, path: string, value: unknown): unknown {
  if (path === "") return value;
  const { parent, key } = parentOf(doc, path);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, key, true, path), 0, value);
  else parent[key] = value;
  return doc;
}

function remove(doc: unknown, path: string): unknown {
  if (path === "") throw new JsonPatchError("cannot remove the whole document", "failed");
  const { parent, key } = parentOf(doc, path);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, key, false, path), 1);
  else if (Object.hasOwn(parent, key)) delete parent[key];
  else throw new JsonPatchError(`path ${path} does not exist`, "failed");
  return doc;
}

/** Options of {@link applyJsonPatch}. */
export interface JsonPatchOptions {
  /**
   * The most that `copy` operations may add to the document, counted as the JSON size of the
   * values they copy (unlimited when absent). Each copy can double a document, so a short patch
   * could otherwise build one of any size.
   */
  maxCopyBytes?: number;
}

/** Applies a JSON Patch to a copy of `doc` and returns the result. */
export function applyJsonPatch(
  doc: unknown,
  patch: unknown,
  opts: JsonPatchOptions = {},
): unknown {
  const ops = decodeJsonPatch(patch);
  let out = structuredClone(doc);
  let copied = 0;
  for (const op of ops) {
    switch (op.op) {
      case "add":
        out = add(out, op.path, structuredClone(op.value));
        break;
      case "remove":
        out = remove(out, op.path);
        break;
      case "replace":
        get(out, op.path);
        out = op.path === ""
          ? structuredClone(op.value)
          : add(remove(out, op.path), op.path, structuredClone(op.value));
        break;
      case "move": {
        if (op.path !== op.from && op.path.startsWith(op.from! + "/")) {
          throw new JsonPatchError(
            `cannot move ${op.from} into its own child ${op.path}`,
            "failed",
          );
        }
        const v = get(out, op.from!);
        out = add(remove(out, op.from!), op.path, v);
        break;
      }
      case "copy": {
        const v = get(out, op.from!);
        if (opts.maxCopyBytes !== undefined) {
          copied += JSON.stringify(v)?.length ?? 0;
          if (copied > opts.maxCopyBytes) {
            throw new JsonPatchError(
              `Unable to complete the copy, the accumulated size increase of copy is ${copied}, exceeding the limit ${opts.maxCopyBytes}`,
              "failed",
            );
          }
        }
        out = add(out, op.path, structuredClone(v));
        break;
      }
      case "test":
        if (!deepEqual(get(out, op.path), op.value)) {
          throw new JsonPatchError(`testing value ${op.path} failed`, "failed");
        }
        break;
    }
  }
  return out;
}
