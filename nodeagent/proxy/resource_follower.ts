/**
 * Follows one collection across all namespaces by list-then-watch (the informer's reflector,
 * reduced): lists, watches from the list's resourceVersion, resumes the watch when it ends,
 * lists again on 410 Gone, and backs off on failures. Calls `onChange` with the current set
 * after the list and after every change.
 *
 * @module
 */
import type { KubeList, KubeObject } from "../../shared/api/meta/v1/types.ts";
import type { RestClient, WatchEvent } from "../../shared/client/rest_client.ts";
import type { ResourceRef } from "../../shared/client/resource_path.ts";
import { StatusError } from "../../shared/errors/status_error.ts";
import type { Logger } from "../../shared/log/mod.ts";
import { apiCall } from "../client/api_call.ts";

/** Options of {@link followResource}. */
export interface FollowOptions {
  client: RestClient;
  /** The collection (no namespace: all namespaces). */
  ref: ResourceRef;
  /** Called with every object of the collection after each change. */
  onChange: (objects: KubeObject[]) => void;
  signal: AbortSignal;
  logger?: Logger;
}

class Gone extends Error {}

/** Runs until `signal` aborts; never throws. */
export async function followResource(o: FollowOptions): Promise<void> {
  const objects = new Map<string, KubeObject>();
  const emit = () => o.onChange([...objects.values()]);
  const key = (x: KubeObject) => `${x.metadata.namespace ?? ""}/${x.metadata.name}`;
  let failures = 0;
  while (!o.signal.aborted) {
    try {
      const list = await apiCall<KubeList>(o.client, "GET", o.ref, {
        signal: o.signal,
        timeoutMs: 60_000,
      });
      objects.clear();
      for (const x of list.items) objects.set(key(x), x);
      emit();
      let rv = list.metadata?.resourceVersion ?? "";
      for (;;) {
        rv = await watchOnce(o, rv, (ev) => {
          if (ev.type === "DELETED") objects.delete(key(ev.object));
          else objects.set(key(ev.object), ev.object);
          emit();
        });
        failures = 0;
        if (o.signal.aborted) return;
      }
    } catch (err) {
      if (o.signal.aborted) return;
      if (!(err instanceof Gone) && failures++ % 20 === 0) {
        o.logger?.warn("service proxy: cannot follow " + o.ref.resource, { err: String(err) });
      }
      const delay = err instanceof Gone ? 0 : Math.min(500 * 2 ** Math.min(failures, 6), 30_000);
      await sleep(delay, o.signal);
    }
  }
}

/** One watch request; returns the last resourceVersion seen. */
async function watchOnce(
  o: FollowOptions,
  from: string,
  apply: (ev: WatchEvent<KubeObject>) => void,
): Promise<string> {
  let rv = from;
  const timeoutSeconds = 300 + Math.floor(Math.random() * 300);
  const signal = AbortSignal.any([o.signal, AbortSignal.timeout((timeoutSeconds + 30) * 1000)]);
  try {
    await o.client.watch<KubeObject>(o.ref, {
      resourceVersion: rv,
      allowWatchBookmarks: true,
      timeoutSeconds,
    }, (ev) => {
      if (ev.type === "ERROR") {
        const code = (ev.object as unknown as { code?: number }).code;
        throw code === 410 ? new Gone("gone") : new Error(JSON.stringify(ev.object));
      }
      const next = ev.object?.metadata?.resourceVersion;
      if (next) rv = next;
      if (ev.type !== "BOOKMARK") apply(ev);
    }, signal);
  } catch (err) {
    if (err instanceof StatusError && err.code === 410) throw new Gone(err.message);
    throw err;
  }
  return rv;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
