/**
 * The loop of a keyed controller (client-go's informer plus rate-limited work queue, in
 * small): it follows the change feed under some prefixes, maps every changed object to the
 * keys it concerns (`keysOf`), and syncs them through a {@link KeyedQueue} (each key once
 * however often it was queued, retried with back-off when its sync throws, queued again when
 * its sync asks for a later run: a deadline, a back-off, a schedule); it resyncs every key of
 * `resyncKeys` periodically.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import type { Logger } from "../../../shared/log/mod.ts";
import type { ChangeEvent, KeyValue } from "../../storage/interface.ts";
import type { ChangeFeed } from "../../watch/change_feed.ts";
import { KeyedQueue } from "../keyed_queue.ts";

/** Options of a keyed loop. */
export interface KeyedLoopOptions {
  /** What the loop is called in logs. */
  name: string;
  feed: ChangeFeed;
  /** Key prefixes whose changes are mapped to keys. */
  prefixes: string[];
  /** The keys a changed object concerns (`obj` is the new state, or the last one if deleted). */
  keysOf: (storageKey: string, obj: KubeObject, old?: KubeObject, deleted?: boolean) => string[];
  /** Syncs one key; may answer a delay (ms) after which the key wants to run again. */
  sync: (key: string) => Promise<number | undefined>;
  /** Every key, for the periodic resync. */
  resyncKeys?: () => Promise<string[]>;
  /** Resync period, ms (default 30 s). */
  resyncMs?: number;
  logger?: Logger;
}

/** Follows the feed and syncs keys. */
export class KeyedLoop {
  readonly #opts: KeyedLoopOptions;
  readonly #queue: KeyedQueue;
  #unsubscribe?: () => void;
  #interval?: ReturnType<typeof setInterval>;

  constructor(opts: KeyedLoopOptions) {
    this.#opts = opts;
    this.#queue = new KeyedQueue(opts.name, (key) => this.#run(key), opts.logger);
  }

  /** Starts following the prefixes; every existing object's keys are queued. */
  async start(): Promise<void> {
    if (this.#queue.stopped || this.#unsubscribe) return;
    this.#unsubscribe = await this.#opts.feed.follow(this.#opts.prefixes, {
      reset: (items: KeyValue[]) => {
        for (const kv of items) this.#map(kv.key, JSON.parse(kv.value));
      },
      changes: (events: ChangeEvent[]) => {
        for (const e of events) {
          const obj = (e.decoded ?? JSON.parse(e.value)) as KubeObject;
          const old = e.prevValue ? JSON.parse(e.prevValue) as KubeObject : undefined;
          this.#map(e.key, obj, old, e.type === "DELETED");
        }
      },
    });
    if (this.#opts.resyncKeys) {
      this.#interval = setInterval(() => this.resync(), this.#opts.resyncMs ?? 30_000);
    }
  }

  /** Queues every key of `resyncKeys`. */
  async resync(): Promise<void> {
    const keys = await this.#opts.resyncKeys?.().catch(() => []) ?? [];
    for (const k of keys) this.add(k);
  }

  /** Queues `key`. */
  add(key: string): void {
    this.#queue.add(key);
  }

  /** Resolves when no key is being synced or waits (timers not counted). */
  idle(): Promise<void> {
    return this.#queue.idle();
  }

  /** Stops the loop and waits for the sync in progress. */
  async stop(): Promise<void> {
    this.#unsubscribe?.();
    clearInterval(this.#interval);
    await this.#queue.stop();
  }

  #map(storageKey: string, obj: KubeObject, old?: KubeObject, deleted = false): void {
    try {
      for (const k of this.#opts.keysOf(storageKey, obj, old, deleted)) this.#queue.add(k);
    } catch (err) {
      this.#opts.logger?.error(`${this.#opts.name} event skipped`, { err: String(err) });
    }
  }

  async #run(key: string): Promise<void> {
    const again = await this.#opts.sync(key);
    if (again !== undefined) this.#queue.after(key, Math.max(again, 10));
  }
}

/** `<namespace>/<name>` of the controller owner of `obj` when it is of `kind`. */
export function controllerKeyOf(obj: KubeObject, kind: string): string | undefined {
  const ref = (obj.metadata.ownerReferences ?? []).find((r) => r.controller === true);
  return ref && ref.kind === kind ? `${obj.metadata.namespace}/${ref.name}` : undefined;
}

/** The namespace and name of a `<namespace>/<name>` key. */
export function splitKey(key: string): [string, string] {
  const slash = key.indexOf("/");
  return [key.slice(0, slash), key.slice(slash + 1)];
}

/** The `<namespace>/<name>` keys of every object in `store` (for a periodic resync). */
export async function keysIn(
  store: { list(ns: string, q: { plan: { mode: "latest" } }): Promise<{ items: KubeObject[] }> },
): Promise<string[]> {
  const list = await store.list("", { plan: { mode: "latest" } });
  return list.items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`);
}
