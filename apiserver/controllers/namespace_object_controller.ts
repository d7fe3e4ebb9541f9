/**
 * Keeps one object in every active namespace (the `default` ServiceAccount, the
 * `kube-root-ca.crt` ConfigMap): created when its namespace appears, created again when it is
 * deleted (an existing one is left as it is). It follows the change feed (every API
 * server's commits) for namespaces and for the object's kind; the initial pass over existing
 * namespaces completes before `start` resolves, so the bootstrap namespaces have it when the
 * server is ready.
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../shared/errors/status_error.ts";
import type { Logger } from "../../shared/log/mod.ts";
import type { Store } from "../registry/generic/store.ts";
import type { ChangeEvent, KeyValue } from "../storage/interface.ts";
import type { ChangeFeed } from "../watch/change_feed.ts";
import { WorkQueue } from "./work_queue.ts";

/** What the controller keeps, and where. */
export interface NamespaceObjectSpec {
  /** The controller's name in logs. */
  name: string;
  namespaces: () => Store;
  /** The store of the kept object's kind. */
  objects: () => Store;
  /** The kept object's name. */
  objectName: string;
  /** The object wanted in `namespace`. */
  desired(namespace: string): KubeObject;
  feed: ChangeFeed;
  logger?: Logger;
}

/** Keeps one object per active namespace. */
export class NamespaceObjectController {
  readonly #spec: NamespaceObjectSpec;
  readonly #queue: WorkQueue<string>;
  #unsubscribe?: () => void;

  constructor(spec: NamespaceObjectSpec) {
    this.#spec = spec;
    this.#queue = new WorkQueue(
      (ns) => this.sync(ns),
      (ns, err) =>
        spec.logger?.error(`${spec.name} sync failed`, { namespace: ns, err: String(err) }),
    );
  }

  /** Syncs every existing namespace, then follows changes. */
  async start(): Promise<void> {
    if (this.#queue.stopped || this.#unsubscribe) return;
    const namespaces = this.#spec.namespaces();
    const objects = this.#spec.objects();
    const list = await namespaces.list("", { plan: { mode: "latest" } });
    for (const ns of list.items) {
      await this.sync(ns.metadata.name!).catch((err) =>
        this.#spec.logger?.error(`${this.#spec.name} sync failed`, { err: String(err) })
      );
    }
    const mark = (keys: string[]) => {
      for (const key of keys) {
        if (key.startsWith(namespaces.prefix)) this.#queue.add(key.slice(namespaces.prefix.length));
        else if (key.startsWith(objects.prefix) && key.endsWith(`/${this.#spec.objectName}`)) {
          this.#queue.add(key.slice(objects.prefix.length).split("/")[0]);
        }
      }
    };
    this.#unsubscribe = await this.#spec.feed.follow([namespaces.prefix, objects.prefix], {
      reset: (_items: KeyValue[]) => {},
      changes: (events: ChangeEvent[]) => mark(events.map((e) => e.key)),
    });
  }

  /** Stops following and waits for the sync in progress. */
  async stop(): Promise<void> {
    this.#unsubscribe?.();
    await this.#queue.stop();
  }

  /** Resolves when no sync waits or runs (tests). */
  idle(): Promise<void> {
    return this.#queue.idle();
  }

  /** Ensures the object in `namespace` when the namespace is active. */
  async sync(namespace: string): Promise<void> {
    const ns = await this.#spec.namespaces().get("", namespace).catch(notFoundAsUndefined);
    if (!ns || ns.metadata.deletionTimestamp) return;
    const store = this.#spec.objects();
    const current = await store.get(namespace, this.#spec.objectName).catch(notFoundAsUndefined);
    try {
      if (!current) await store.create(namespace, this.#spec.desired(namespace));
    } catch (err) {
      // Created or deleted meanwhile, or the namespace started terminating: its commit re-queues.
      if (err instanceof StatusError && [403, 404, 409].includes(err.code)) return;
      throw err;
    }
  }
}

function notFoundAsUndefined(err: unknown): undefined {
  if (err instanceof StatusError && err.code === 404) return undefined;
  throw err;
}
