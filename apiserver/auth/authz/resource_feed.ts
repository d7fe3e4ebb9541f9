/**
 * A feed of objects under storage key prefixes: the initial state, then every change. The
 * authorizers keep their in-memory indexes current from it and never read storage per
 * request. {@link ChangeFeedResourceFeed} follows the watch caches' change feed, which sees
 * every API server's commits on a shared database in revision order.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import type { ChangeEvent, KeyValue } from "../../storage/interface.ts";
import type { ChangeFeed } from "../../watch/change_feed.ts";

/** One change to an object under a followed prefix. */
export interface ResourceEvent {
  type: "ADDED" | "MODIFIED" | "DELETED";
  /** The storage key. */
  key: string;
  /**
   * The object after the change (for DELETED, its last state; after a re-list of a
   * {@link ChangeFeedResourceFeed}, only its metadata name and namespace).
   */
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

/** The parts of a followed object kept to report its deletion after a re-list. */
interface Known {
  revision: number;
  name?: string;
  namespace?: string;
}

/**
 * A ResourceFeed over the watch caches' {@link ChangeFeed}: the state at the feed's revision,
 * then every change any process commits, in revision order (another API server's writes
 * arrive within about a poll interval). When the feed lists everything anew, the difference
 * is delivered as events: ADDED and MODIFIED for what appeared or changed, DELETED for what is
 * gone.
 */
export class ChangeFeedResourceFeed implements ResourceFeed {
  constructor(readonly feed: ChangeFeed) {}

  /** Follows `prefixes`; see {@link ResourceFeed.follow}. */
  async follow(
    prefixes: readonly string[],
    handler: (events: ResourceEvent[]) => void,
  ): Promise<() => void> {
    const known = new Map<string, Known>();
    let first = true;
    const remember = (key: string, object: KubeObject, revision: number) => {
      known.set(key, {
        revision,
        name: object.metadata.name,
        namespace: object.metadata.namespace,
      });
    };
    const reset = (items: KeyValue[], revision: number) => {
      const events: ResourceEvent[] = [];
      const present = new Set<string>();
      for (const kv of items) {
        present.add(kv.key);
        const prev = known.get(kv.key);
        if (prev?.revision === kv.revision) continue;
        const object = decode(kv.value);
        if (!object) continue;
        object.metadata.resourceVersion = String(kv.revision);
        remember(kv.key, object, kv.revision);
        events.push({
          type: prev ? "MODIFIED" : "ADDED",
          key: kv.key,
          object,
          revision: kv.revision,
        });
      }
      for (const [key, k] of known) {
        if (present.has(key)) continue;
        known.delete(key);
        const metadata: KubeObject["metadata"] = { resourceVersion: String(revision) };
        if (k.name !== undefined) metadata.name = k.name;
        if (k.namespace !== undefined) metadata.namespace = k.namespace;
        events.push({ type: "DELETED", key, object: { metadata }, revision });
      }
      if (first || events.length > 0) handler(events);
      first = false;
    };
    const changes = (changes: ChangeEvent[]) => {
      const events: ResourceEvent[] = [];
      for (const c of changes) {
        const object = decode(c.value);
        if (!object) continue;
        object.metadata.resourceVersion = String(c.revision);
        if (c.type === "DELETED") known.delete(c.key);
        else remember(c.key, object, c.revision);
        events.push({ type: c.type, key: c.key, object, revision: c.revision });
      }
      if (events.length > 0) handler(events);
    };
    return await this.feed.follow(prefixes, { reset, changes });
  }
}
