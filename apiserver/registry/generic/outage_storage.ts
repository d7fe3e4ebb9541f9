/**
 * The registry boundary's answer to a storage outage: storage whose calls turn a
 * {@link StorageUnavailableError} into a 503 ServiceUnavailable with `Retry-After`, a message that
 * tells the client nothing about the database, and the storage error as its `cause` for the log.
 *
 * @module
 */
import { StatusError } from "../../../shared/errors/status_error.ts";
import { type Storage, StorageUnavailableError } from "../../storage/interface.ts";

/** Seconds a client is asked to wait before retrying during an outage. */
export const OUTAGE_RETRY_AFTER_SECONDS = 1;

/** The 503 that stands for `err` when it is an outage; `err` itself otherwise. */
export function translateOutage(err: unknown): unknown {
  if (!(err instanceof StorageUnavailableError)) return err;
  const status = StatusError.serviceUnavailable(
    "the server is currently unable to reach its storage, please try again",
    OUTAGE_RETRY_AFTER_SECONDS,
  );
  status.cause = err;
  return status;
}

/** `storage` with outages answered as 503 (see the module comment). */
export function withOutagesAs503(storage: Storage): Storage {
  const guard = <A extends unknown[], R>(fn: (...args: A) => Promise<R>) => (...args: A) =>
    fn(...args).catch((err) => {
      throw translateOutage(err);
    });
  return {
    currentRevision: guard(() => storage.currentRevision()),
    compactedRevision: guard(() => storage.compactedRevision()),
    get: guard((key, opts) => storage.get(key, opts)),
    list: guard((prefix, opts) => storage.list(prefix, opts)),
    create: guard((key, value, decoded, side) => storage.create(key, value, decoded, side)),
    update: guard((key, value, rev, decoded, side) =>
      storage.update(key, value, rev, decoded, side)
    ),
    delete: guard((key, rev, side) => storage.delete(key, rev, side)),
    changesSince: guard((after, limit) => storage.changesSince(after, limit)),
    onCommit: (listener) => storage.onCommit(listener),
    compact: guard((revision) => storage.compact(revision)),
    ping: guard(() => storage.ping()),
    close: () => storage.close(),
  };
}
