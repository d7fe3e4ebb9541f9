/**
 * Helpers shared by the watch end-to-end tests: JSON writes that must succeed, ConfigMap
 * bodies, opening a watch and summarising its events.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { TestServer } from "../support/test_server.ts";
import { WatchStream } from "../apiserver/watch/watch_stream.ts";

/** The default namespace's ConfigMaps. */
export const CM = "/api/v1/namespaces/default/configmaps";

/** A decoded JSON body. */
// deno-lint-ignore no-explicit-any
export type Json = any;

/** Sends a JSON request, asserts a 2xx answer and returns its body. */
export async function write(
  t: TestServer,
  method: string,
  path: string,
  body?: unknown,
): Promise<Json> {
  const res = await t.fetch(path, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** A ConfigMap body. */
export function cm(
  name: string,
  data: Record<string, string> = {},
  labels?: Record<string, string>,
) {
  return { metadata: { name, ...(labels ? { labels } : {}) }, data };
}

/** `"<type> <name>"` per event (just the type where the object has no name). */
export function summary(evs: { type: string; object: Json }[]): string[] {
  return evs.map((e) => `${e.type} ${e.object.metadata.name ?? ""}`.trim());
}

/**
 * Whether an event is about the root-ca-cert-publisher's `kube-root-ca.crt`, which exists in
 * every namespace (as in kube) and is not part of what the watch tests write.
 */
export function isRootCaEvent(ev: { object: Json }): boolean {
  const o = ev.object;
  if (o?.kind === "Table") return o.rows?.[0]?.cells?.[0] === "kube-root-ca.crt";
  return o?.kind === "ConfigMap" && o.metadata?.name === "kube-root-ca.crt";
}

/** Opens a watch (`query` without the `?`), asserting a 200; kube-root-ca.crt's events are skipped. */
export async function watch(t: TestServer, query: string, path = CM): Promise<WatchStream> {
  const res = await t.fetch(`${path}?${query}`);
  assert.equal(res.status, 200, `watch ${query}: ${res.status}`);
  return new WatchStream(res, isRootCaEvent);
}
