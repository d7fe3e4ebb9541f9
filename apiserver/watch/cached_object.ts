/**
 * What the watch cache keeps per object and per event: the object's JSON text (with
 * apiVersion, kind and resourceVersion set, ready to send; built when first needed), its
 * revision, and the label and field sets selectors are matched against. Parsing happens once,
 * when the change arrives, and other readers of the same commit (the garbage collector) share
 * that parse through `parseStoredValue` (`registry/generic/stored_value.ts`).
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { parseStoredValue } from "../registry/generic/stored_value.ts";

/** One object as the cache holds it. */
export interface CachedObject {
  /** Full storage key. */
  key: string;
  /** The object's JSON text, with apiVersion, kind and metadata.resourceVersion. */
  json: string;
  /** The object's revision (its resourceVersion). */
  revision: number;
  /** Its labels (frozen; shared, never mutated). */
  labels: Readonly<Record<string, string>>;
  /** Its selectable fields (metadata.name, metadata.namespace, per-kind ones). */
  fields: Readonly<Record<string, string>>;
}

/** A change as the cache records it (the history ring holds these). */
export interface CacheEvent {
  type: "ADDED" | "MODIFIED" | "DELETED";
  key: string;
  /** Revision of the change. */
  revision: number;
  /** When the cache recorded it (ms since the epoch), for the history window. */
  time: number;
  /**
   * The object after the change; for DELETED, its last state carrying the deletion's
   * revision.
   */
  object: CachedObject;
  /** The object before the change (MODIFIED and DELETED), for selector transitions. */
  prev?: CachedObject;
  /**
   * Encoded events per delivered type (and wire format, for formats other than JSON), built
   * on first use and shared by every watcher.
   */
  lines?: Partial<Record<string, Uint8Array>>;
}

/** How the cache turns a stored value into a {@link CachedObject}. */
export interface ObjectCodec {
  /** apiVersion and kind every object of this resource carries. */
  apiVersion: string;
  kind: string;
  /** The selectable fields of an object. */
  fieldsOf(obj: KubeObject): Record<string, string>;
  /** Defaults applied to an object read from storage (custom resources), on its own copy. */
  readDefaults?(obj: KubeObject): void;
}

/**
 * Parses a stored value into a cached object at `revision` (`decoded`, the writer's object
 * when the change carries one, stands in for the parse). Its labels and fields are read now;
 * its JSON text is built on first use (a watcher or a list needs it; with nobody watching, a
 * write never pays for it).
 */
export function cachedObjectOf(
  codec: ObjectCodec,
  key: string,
  value: string,
  revision: number,
  decoded?: unknown,
): CachedObject {
  const obj = parseStoredValue(value, decoded);
  if (obj === null || typeof obj !== "object" || Array.isArray(obj)) {
    throw new TypeError(`the value of ${key} is not an object`);
  }
  const labels = obj.metadata?.labels;
  return new StoredObject(
    key,
    revision,
    labels ? { ...labels } : EMPTY,
    // Read only: the parse is shared (it may be the store's own object).
    codec.fieldsOf(obj),
    codec,
    value,
  );
}

/** A shallow copy of `obj` with apiVersion, kind and resourceVersion set. */
function stamp(codec: ObjectCodec, shared: KubeObject, revision: number): KubeObject {
  let obj = shared;
  if (codec.readDefaults) {
    obj = structuredClone(shared);
    codec.readDefaults(obj);
  }
  const metadata = { ...obj.metadata, resourceVersion: String(revision) };
  return { ...obj, apiVersion: codec.apiVersion, kind: codec.kind, metadata };
}

/** A {@link CachedObject} whose JSON text is built from the stored value when first read. */
class StoredObject implements CachedObject {
  #codec: ObjectCodec | undefined;
  #value: string | undefined;
  #json: string | undefined;

  constructor(
    readonly key: string,
    readonly revision: number,
    readonly labels: Readonly<Record<string, string>>,
    readonly fields: Readonly<Record<string, string>>,
    codec: ObjectCodec,
    value: string,
  ) {
    this.#codec = codec;
    this.#value = value;
  }

  get json(): string {
    if (this.#json === undefined) {
      this.#json = JSON.stringify(
        stamp(this.#codec!, parseStoredValue(this.#value!), this.revision),
      );
      this.#codec = undefined;
      this.#value = undefined;
    }
    return this.#json;
  }
}

/** The same object with another resourceVersion (a DELETED event of a selector transition). */
export function withRevision(obj: CachedObject, revision: number): CachedObject {
  if (obj.revision === revision) return obj;
  const parsed = JSON.parse(obj.json) as KubeObject;
  parsed.metadata.resourceVersion = String(revision);
  return { ...obj, json: JSON.stringify(parsed), revision };
}

const EMPTY: Readonly<Record<string, string>> = Object.freeze({});
