/**
 * An informer over the change feed (client-go's shared informer, in-process): it keeps the
 * objects under some key prefixes in memory, decoded once, each with its resourceVersion, and
 * tells its handler of every add, update and delete (every API server's commits, in revision
 * order); at its resync period it hands every cached object to the handler again as an
 * update of itself. The objects are shared: read them, copy before changing.
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import type { ChangeEvent, KeyValue } from "../storage/interface.ts";
import type { ChangeFeed } from "../watch/change_feed.ts";

/** Hears each change: `prefix` is the followed prefix it falls under. */
export type InformerHandler = (
  prefix: string,
  obj: KubeObject | undefined,
  old: KubeObject | undefined,
) => void;

/** Options of an informer. */
export interface InformerOptions {
  feed: ChangeFeed;
  /** Key prefixes followed, e.g. `/registry/core/pods/`. */
  prefixes: readonly string[];
  handler: InformerHandler;
  /** Period of the resync, ms (0: none). */
  resyncMs?: number;
}

/** The objects under the prefixes, kept from the feed. */
export class Informer {
  readonly #opts: InformerOptions;
  /** Objects by prefix, then by `<namespace>/<name>` (or `<name>`). */
  readonly #objects = new Map<string, Map<string, KubeObject>>();
  #unsubscribe?: () => void;
  #timer?: ReturnType<typeof setInterval>;

  constructor(opts: InformerOptions) {
    this.#opts = opts;
    for (const p of opts.prefixes) this.#objects.set(p, new Map());
  }

  /** Starts following; resolves once the initial state is cached and handed over. */
  async start(): Promise<void> {
    if (this.#unsubscribe) return;
    this.#unsubscribe = await this.#opts.feed.follow(this.#opts.prefixes, {
      reset: (items: KeyValue[]) => this.#reset(items),
      changes: (events: ChangeEvent[]) => this.#changes(events),
    });
    if (this.#opts.resyncMs) this.#timer = setInterval(() => this.resync(), this.#opts.resyncMs);
  }

  /** Stops following. */
  stop(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    clearInterval(this.#timer);
  }

  /** Hands every cached object to the handler again. */
  resync(): void {
    for (const [prefix, objects] of this.#objects) {
      for (const obj of objects.values()) this.#opts.handler(prefix, obj, obj);
    }
  }

  /** The object `namespace/name` (`name` for cluster-scoped) under `prefix`. */
  get(prefix: string, namespace: string, name: string): KubeObject | undefined {
    return this.#objects.get(prefix)?.get(namespace ? `${namespace}/${name}` : name);
  }

  /** The objects under `prefix`, of one namespace when given. */
  list(prefix: string, namespace?: string): KubeObject[] {
    const all = [...(this.#objects.get(prefix)?.values() ?? [])];
    return namespace === undefined ? all : all.filter((o) => o.metadata.namespace === namespace);
  }

  #prefixOf(key: string): string | undefined {
    return this.#opts.prefixes.find((p) => key.startsWith(p));
  }

  #reset(items: KeyValue[]): void {
    const before = new Map([...this.#objects].map(([p, m]) => [p, new Map(m)]));
    for (const m of this.#objects.values()) m.clear();
    for (const kv of items) {
      const prefix = this.#prefixOf(kv.key);
      if (!prefix) continue;
      const obj = withRevision(JSON.parse(kv.value), kv.revision);
      const id = kv.key.slice(prefix.length);
      this.#objects.get(prefix)!.set(id, obj);
      this.#opts.handler(prefix, obj, before.get(prefix)?.get(id));
      before.get(prefix)?.delete(id);
    }
    for (const [prefix, gone] of before) {
      for (const old of gone.values()) this.#opts.handler(prefix, undefined, old);
    }
  }

  #changes(events: ChangeEvent[]): void {
    for (const e of events) {
      const prefix = this.#prefixOf(e.key);
      if (!prefix) continue;
      const id = e.key.slice(prefix.length);
      const objects = this.#objects.get(prefix)!;
      const old = objects.get(id);
      if (e.type === "DELETED") {
        objects.delete(id);
        this.#opts.handler(prefix, undefined, old ?? withRevision(JSON.parse(e.value), e.revision));
        continue;
      }
      const raw = (e.decoded ?? JSON.parse(e.value)) as KubeObject;
      const obj = withRevision(raw, e.revision);
      objects.set(id, obj);
      this.#opts.handler(prefix, obj, old);
    }
  }
}

/** A shallow copy of `obj` carrying `revision` as its resourceVersion. */
function withRevision(obj: KubeObject, revision: number): KubeObject {
  return { ...obj, metadata: { ...obj.metadata, resourceVersion: String(revision) } };
}
