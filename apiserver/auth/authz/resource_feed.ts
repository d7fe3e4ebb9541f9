/**
 * A feed of objects under storage key prefixes: the initial state, then every change. The
 * authorizers keep their in-memory indexes current from it and never read storage per
 * request. {@link StorageResourceFeed} lists storage once and follows `storage.onCommit`; the
 * watch cache can replace it behind the same interface.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import type { ChangeEvent, Storage } from "../../storage/interface.ts";

/** One change to an object under a followed prefix. */
export interface ResourceEvent {
  type: "ADDED" | "MODIFIED" | "DELETED";
  /** The storage key. */
  key: string;
  /** The object after the change (for DELETED, its last state). */
  object: KubeObject;
  revision: number;
}

/** Delivers the objects under some key prefixes, then their changes, in revision order. */
export interface ResourceFeed {
  /**
   * Delivers every current object under `prefixes` as ADDED events, then every later change.
   * Resolves once the initial state was delivered; returns a function that stops the feed.
   */
  follow(prefixes: readonly string[], handler: (events: ResourceEvent[]) => void): Promise<
    () => void
  >;
}

function decode(value: string): KubeObject | undefined {
  try {
    const obj = JSON.parse(value) as KubeObject;
    return obj && typeof obj === "object" && obj.metadata ? obj : undefined;
  } catch {
    return undefined;
  }
}

/** A ResourceFeed over storage: one list per prefix, then the process's committed changes. */
export class StorageResourceFeed implements ResourceFeed {
  constructor(readonly storage: Storage) {}

  /** Follows `prefixes`; see {@link ResourceFeed.follow}. */
  async follow(
    prefixes: readonly string[],
    handler: (events: ResourceEvent[]) => void,
  ): Promise<() => void> {
    const matches = (key: string) => prefixes.some((p) => key.startsWith(p));
    let buffered: ChangeEvent[] | undefined = [];
    const toEvents = (changes: ChangeEvent[]): ResourceEvent[] => {
      const out: ResourceEvent[] = [];
      for (const c of changes) {
        if (!matches(c.key)) continue;
        const object = decode(c.value);
        if (!object) continue;
        object.metadata.resourceVersion = String(c.revision);
        out.push({ type: c.type, key: c.key, object, revision: c.revision });
      }
      return out;
    };
    const unsubscribe = this.storage.onCommit((changes) => {
      if (buffered) {
        buffered.push(...changes);
        return;
      }
      const events = toEvents(changes);
      if (events.length > 0) handler(events);
    });
    try {
      const listedAt = new Map<string, number>();
      const initial: ResourceEvent[] = [];
      for (const prefix of prefixes) {
        const res = await this.storage.list(prefix);
        listedAt.set(prefix, res.revision);
        for (const kv of res.items) {
          const object = decode(kv.value);
          if (!object) continue;
          object.metadata.resourceVersion = String(kv.revision);
          initial.push({ type: "ADDED", key: kv.key, object, revision: kv.revision });
        }
      }
      handler(initial);
      const pending = buffered.filter((c) => {
        const prefix = prefixes.find((p) => c.key.startsWith(p));
        return prefix !== undefined && c.revision > (listedAt.get(prefix) ?? 0);
      });
      buffered = undefined;
      const events = toEvents(pending);
      if (events.length > 0) handler(events);
    } catch (err) {
      unsubscribe();
      throw err;
    }
    return unsubscribe;
  }
}
