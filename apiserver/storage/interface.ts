/**
 * The storage contract: etcd semantics (one global revision, compare-and-swap on the revision
 * read) over opaque string values. Storage knows keys, revisions and bytes; it never sees a
 * Request or an object's shape. Errors are the typed classes below; the registry translates
 * them into StatusError once.
 *
 * @module
 */

/** One stored value with the revision of its last change. */
export interface KeyValue {
  /** Full storage key, e.g. `/registry/core/configmaps/default/foo`. */
  key: string;
  /** Opaque value (JSON text of the object, without its resourceVersion). */
  value: string;
  /** Revision of the last change to this key (the object's resourceVersion). */
  revision: number;
}

/** A change as recorded in the change log. */
export interface ChangeEvent {
  type: "ADDED" | "MODIFIED" | "DELETED";
  key: string;
  /** The value after the change; for DELETED, the last value before deletion. */
  value: string;
  /** Revision of this change. */
  revision: number;
  /** The value before the change (absent for ADDED). */
  prevValue?: string;
  /** Revision of the previous change to this key (0 for ADDED). */
  prevRevision: number;
  /**
   * The in-memory form of `value` that this process's writer passed with the write, for
   * listeners of {@link Storage.onCommit} to use instead of parsing `value` again. Absent for
   * DELETED and for changes read back from the log. Shared by every listener: never change it.
   */
  decoded?: unknown;
}

/** Options of a list. */
export interface ListOptions {
  /**
   * Read the state as of this revision (Exact). Absent: the latest state. A revision below
   * the compacted revision throws CompactedError; above the current one, FutureRevisionError.
   */
  revision?: number;
  /** Keys >= startKey (inclusive); must lie inside the prefix. */
  startKey?: string;
  /** At most this many items (after filtering). 0 or absent: no limit. */
  limit?: number;
  /**
   * Keeps only the values it returns true for. Storage keeps reading until `limit` items
   * matched (as etcd3's store does).
   */
  filter?: (kv: KeyValue) => boolean;
  /** Count the keys after the last returned one (for remainingItemCount). Ignored with filter. */
  count?: boolean;
}

/** Result of a list. */
export interface ListResult {
  items: KeyValue[];
  /** The revision the list was read at. */
  revision: number;
  /** True if more keys (matching or not) follow the last returned item. */
  more: boolean;
  /** With `count` and no filter: keys after the last returned item. */
  remaining?: number;
}

/**
 * Other keys written in the same transaction as a create, update or delete, all or nothing
 * (exclusive claims such as a Service's ClusterIP and NodePorts).
 */
export interface SideWrites {
  /** Keys created with the write; one that exists fails the write with its KeyExistsError. */
  create?: readonly { key: string; value: string }[];
  /** Keys deleted with the write, at whatever revision; a missing one is skipped. */
  delete?: readonly string[];
}

/** The storage interface every backend implements. */
export interface Storage {
  /** The newest committed revision. */
  currentRevision(): Promise<number>;
  /** The oldest revision still readable (everything at or below it was compacted). */
  compactedRevision(): Promise<number>;
  /** Reads one key at the latest revision or, with `revision`, as of that revision. */
  get(key: string, opts?: { revision?: number }): Promise<KeyValue | undefined>;
  /** Lists keys with the given prefix, in key order. */
  list(prefix: string, opts?: ListOptions): Promise<ListResult>;
  /**
   * Creates a key; throws KeyExistsError if it exists. `decoded` (optional, never stored) is
   * handed to commit listeners as {@link ChangeEvent.decoded}. `side` keys are written in the
   * same transaction (see {@link SideWrites}).
   */
  create(key: string, value: string, decoded?: unknown, side?: SideWrites): Promise<KeyValue>;
  /**
   * Replaces a key's value if its current revision equals `expectedRevision`; throws
   * RevisionConflictError if not, KeyNotFoundError if the key is absent. `decoded` and `side`
   * as for {@link create}.
   */
  update(
    key: string,
    value: string,
    expectedRevision: number,
    decoded?: unknown,
    side?: SideWrites,
  ): Promise<KeyValue>;
  /**
   * Deletes a key if its current revision equals `expectedRevision` (0 = any); throws as
   * update does. Returns the change with the deletion's revision and the last value. `side`
   * as for {@link create}.
   */
  delete(key: string, expectedRevision: number, side?: SideWrites): Promise<ChangeEvent>;
  /**
   * Changes with revision > `afterRevision`, in revision order, at most `limit`. Throws
   * CompactedError if `afterRevision` is older than the compacted revision.
   */
  changesSince(afterRevision: number, limit: number): Promise<ChangeEvent[]>;
  /**
   * Subscribes to this process's committed changes, delivered in revision order after commit.
   * Returns an unsubscribe function.
   */
  onCommit(listener: (events: ChangeEvent[]) => void): () => void;
  /** Compacts history at or below `revision`. */
  compact(revision: number): Promise<void>;
  /** A cheap round trip that proves the backend answers (health check). */
  ping(): Promise<void>;
  /** Closes the backend; pending writes finish first. */
  close(): Promise<void>;
}

/** Base class of storage errors. */
export class StorageError extends Error {
  constructor(message: string, readonly key: string) {
    super(message);
    this.name = this.constructor.name;
  }
}

/**
 * The database could not be reached or did not take the operation (a libSQL server outage, a
 * full or failing disk). `cause` holds the detail, which belongs in the log, not in answers.
 */
export class StorageUnavailableError extends StorageError {
  constructor(message: string, options: { cause: unknown }) {
    super(message, "");
    this.cause = options.cause;
  }
}

/** The key exists (create). */
export class KeyExistsError extends StorageError {}

/** The key does not exist (update, delete). */
export class KeyNotFoundError extends StorageError {}

/** The key's revision is not the expected one (update, delete). */
export class RevisionConflictError extends StorageError {
  constructor(message: string, key: string, readonly currentRevision: number) {
    super(message, key);
  }
}

/** The requested revision was compacted. */
export class CompactedError extends StorageError {
  constructor(readonly requested: number, readonly compacted: number) {
    super(`Cannot read revision ${requested}: compacted at ${compacted}`, "");
  }
}

/** The requested revision is newer than the newest one. */
export class FutureRevisionError extends StorageError {
  constructor(readonly requested: number, readonly current: number) {
    super(`Cannot read revision ${requested}: current is ${current}`, "");
  }
}
