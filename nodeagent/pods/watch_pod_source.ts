/**
 * The pods bound to this node by list-then-watch, as the kubelet's reflector follows them:
 *
 * 1. list `pods?fieldSelector=spec.nodeName=<node>` and report the set;
 * 2. watch from the list's resourceVersion (with bookmarks and a server-side timeout), applying
 *    ADDED, MODIFIED and DELETED to the set and reporting it after each change;
 * 3. when the watch ends or the connection drops, watch again from the last resourceVersion seen
 *    (after a back-off when it failed);
 * 4. when that resourceVersion is gone (410 Gone, as an answer or an ERROR event), list again.
 *
 * When the API server does not serve watches at all (404, 405 or 501 on the first watch), the
 * source hands over to a fallback source (the polling one) for good.
 *
 * @module
 */
import type { KubeList, KubeObject } from "../../shared/api/meta/v1/types.ts";
import type { RestClient, WatchEvent } from "../../shared/client/rest_client.ts";
import { StatusError } from "../../shared/errors/status_error.ts";
import type { Logger } from "../../shared/log/mod.ts";
import { statusErrorFromResponse } from "../../shared/errors/status_error_from_response.ts";
import { apiCall } from "../client/api_call.ts";
import type { Clock } from "../clock/clock.ts";
import type { PodSource } from "./pod_source.ts";

/** Options of {@link WatchPodSource}. */
export interface WatchPodSourceOptions {
  client: RestClient;
  nodeName: string;
  clock: Clock;
  logger?: Logger;
  /** The server-side watch timeout in seconds (default: random in [300, 600), the reflector's). */
  watchTimeoutSeconds?: number;
  /** First retry delay after a failure (ms, default 800, doubling up to 30 s). */
  retryBaseMs?: number;
  /** Used when the server serves no watch; without it the source keeps listing on failures. */
  fallback?: () => PodSource;
}

/** Counters for tests and logs. */
export interface WatchPodSourceStats {
  /** Lists made (the first one and every relist). */
  lists: number;
  /** Watch requests made. */
  watches: number;
  /** Relists caused by 410 Gone. */
  gone: number;
}

/** Thrown inside the loop when the watched resourceVersion is gone. */
class Gone extends Error {}

/** Thrown inside the loop when the server does not serve watches. */
class NoWatch extends Error {}

/** Follows this node's pods with a watch. */
export class WatchPodSource implements PodSource {
  readonly #o: WatchPodSourceOptions;
  readonly #abort = new AbortController();
  #loop?: Promise<void>;
  #fallback?: PodSource;
  /** Counters (read-only for callers). */
  readonly stats: WatchPodSourceStats = { lists: 0, watches: 0, gone: 0 };

  /** Creates a stopped source. */
  constructor(opts: WatchPodSourceOptions) {
    this.#o = opts;
  }

  /** Starts listing and watching. */
  start(onPods: (pods: KubeObject[]) => void): void {
    if (this.#loop) return;
    this.#loop = this.#run(onPods).catch((err) => {
      if (!this.#abort.signal.aborted) {
        this.#o.logger?.error("pod watch stopped", { err: String(err) });
      }
    });
  }

  /** Stops the watch (or the fallback) and waits for it. */
  async stop(): Promise<void> {
    this.#abort.abort(new Error("pod source stopped"));
    await this.#loop;
    await this.#fallback?.stop();
  }

  get #query(): { fieldSelector: string } {
    return { fieldSelector: `spec.nodeName=${this.#o.nodeName}` };
  }

  async #run(onPods: (pods: KubeObject[]) => void): Promise<void> {
    const signal = this.#abort.signal;
    const pods = new Map<string, KubeObject>();
    const emit = () => onPods([...pods.values()]);
    let failures = 0;
    let watchedOnce = false;
    const backoff = async () => {
      const base = this.#o.retryBaseMs ?? 800;
      const delay = Math.min(base * 2 ** Math.min(failures - 1, 10), 30_000);
      await this.#o.clock.sleep(delay, signal);
    };
    while (!signal.aborted) {
      // List.
      let rv: string;
      try {
        this.stats.lists++;
        const list = await apiCall<KubeList>(this.#o.client, "GET", {
          version: "v1",
          resource: "pods",
        }, { query: this.#query, signal, timeoutMs: 60_000 });
        pods.clear();
        for (const p of list.items) if (p.metadata?.uid) pods.set(p.metadata.uid, p);
        rv = list.metadata?.resourceVersion ?? "";
        failures = 0;
        emit();
      } catch (err) {
        if (signal.aborted) return;
        if (failures++ % 30 === 0) {
          this.#o.logger?.warn("cannot list pods of this node", { err: String(err) });
        }
        await backoff().catch(() => {});
        continue;
      }
      // Watch from rv until it is gone.
      while (!signal.aborted) {
        try {
          rv = await this.#watchOnce(rv, pods, emit, signal);
          watchedOnce = true;
          failures = 0;
        } catch (err) {
          if (signal.aborted) return;
          if (err instanceof Gone) {
            this.stats.gone++;
            this.#o.logger?.v(1).info("pod watch resourceVersion gone; listing again", {
              resourceVersion: rv,
            });
            break;
          }
          if (err instanceof NoWatch && !watchedOnce && this.#o.fallback) {
            this.#o.logger?.warn("the API server does not serve watches; polling pods instead", {
              err: err.message,
            });
            this.#fallback = this.#o.fallback();
            this.#fallback.start(onPods);
            return;
          }
          if (failures++ % 30 === 0) {
            this.#o.logger?.warn("pod watch failed; resuming", { err: String(err) });
          }
          await backoff().catch(() => {});
        }
      }
    }
  }

  /** One watch request; returns the last resourceVersion seen when the server ends it. */
  async #watchOnce(
    from: string,
    pods: Map<string, KubeObject>,
    emit: () => void,
    signal: AbortSignal,
  ): Promise<string> {
    let rv = from;
    const timeoutSeconds = this.#o.watchTimeoutSeconds ??
      300 + Math.floor(Math.random() * 300);
    // A stalled connection is abandoned a while after the server should have ended it.
    const deadline = AbortSignal.timeout((timeoutSeconds + 30) * 1000);
    const both = AbortSignal.any([signal, deadline]);
    this.stats.watches++;
    try {
      await this.#o.client.watch<KubeObject>(
        { version: "v1", resource: "pods" },
        {
          ...this.#query,
          resourceVersion: rv,
          allowWatchBookmarks: true,
          timeoutSeconds,
        },
        (ev: WatchEvent<KubeObject>) => {
          if (ev.type === "ERROR") {
            const s = ev.object as unknown as { code?: number };
            const e = statusErrorFromResponse({
              status: s.code ?? 500,
              body: JSON.stringify(ev.object),
            });
            throw e.code === 410 ? new Gone(e.message) : e;
          }
          const next = ev.object?.metadata?.resourceVersion;
          if (next) rv = next;
          if (ev.type === "BOOKMARK") return;
          const uid = ev.object?.metadata?.uid;
          if (!uid) return;
          if (ev.type === "DELETED") pods.delete(uid);
          else pods.set(uid, ev.object);
          emit();
        },
        both,
      );
    } catch (err) {
      if (err instanceof StatusError) {
        if (err.code === 410) throw new Gone(err.message);
        if ([404, 405, 501].includes(err.code)) throw new NoWatch(err.message);
      }
      throw err;
    }
    if (deadline.aborted && !signal.aborted) {
      throw new Error(`the watch did not end within ${timeoutSeconds + 30}s`);
    }
    return rv;
  }
}
