/**
 * One JSON request to a test server, for end-to-end tests: the body sent as JSON, the answer's
 * status and decoded body (`{}` when empty).
 *
 * @module
 */
import assert from "node:assert/strict";
import type { TestServer } from "./test_server.ts";

/** A decoded answer. */
export interface JsonReply {
  status: number;
  // deno-lint-ignore no-explicit-any
  json: Record<string, any>;
}

/** Sends `body` (when given) as JSON with `headers` and decodes the answer. */
export async function jsonCall(
  t: TestServer,
  method: string,
  path: string,
  body?: unknown,
  headers: HeadersInit = {},
): Promise<JsonReply> {
  const h = new Headers(headers);
  if (!h.has("content-type")) h.set("content-type", "application/json");
  const res = await t.fetch(path, {
    method,
    headers: h,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : {} };
}

/** {@linkcode jsonCall} as the admin, asserting a 2xx answer; returns its body. */
export async function jsonOk(
  t: TestServer,
  method: string,
  path: string,
  body?: unknown,
): Promise<JsonReply["json"]> {
  const r = await jsonCall(t, method, path, body);
  assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${JSON.stringify(r.json)}`);
  return r.json;
}
