/**
 * Small helpers shared by the foundation end-to-end tests: one HTTP call with a JSON (or raw)
 * body and a decoded answer, and assertions on Status error bodies.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { KubeList, KubeObject, Status } from "../../shared/api/meta/v1/types.ts";
import type { TestServer } from "../support/test_server.ts";

/** A decoded answer. `body` is the parsed JSON, the raw text if not JSON, or null if empty. */
export interface Reply<T = KubeObject> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/**
 * Sends one request. An object body is sent as JSON; a string body as it is (with the given
 * Content-Type, default application/json).
 */
export async function call<T = KubeObject>(
  t: TestServer,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Reply<T>> {
  const init: RequestInit & { auth?: boolean } = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = typeof body === "string" ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)["content-type"] ??= "application/json";
  }
  const res = await t.fetch(path, init);
  const text = await res.text();
  let parsed: unknown = null;
  if (text !== "") {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

/** GET of a list. */
export function list(t: TestServer, path: string): Promise<Reply<KubeList>> {
  return call<KubeList>(t, "GET", path);
}

/**
 * Asserts that a reply is a Failure Status with `code` (and `reason` when given), and returns
 * the Status.
 */
export function assertStatus(reply: Reply<unknown>, code: number, reason?: string): Status {
  const s = reply.body as Status;
  assert.equal(reply.status, code, `expected ${code}, got ${reply.status}: ${reply.text}`);
  assert.equal(typeof s, "object", `expected a Status body, got ${reply.text}`);
  assert.equal(s.kind, "Status", reply.text);
  assert.equal(s.apiVersion, "v1");
  assert.equal(s.status, "Failure");
  assert.equal(s.code, code);
  assert.equal(typeof s.message, "string");
  if (reason !== undefined) assert.equal(s.reason, reason, reply.text);
  return s;
}

/** Asserts a 2xx reply (with the code when given), showing the body otherwise. */
export function assertOk<T>(reply: Reply<T>, code?: number): T {
  if (code !== undefined) assert.equal(reply.status, code, reply.text);
  else assert.ok(reply.status >= 200 && reply.status < 300, `${reply.status}: ${reply.text}`);
  return reply.body;
}

/**
 * The objects controllers keep in every namespace, as kube's do: the root-ca-cert-publisher's
 * ConfigMap and the serviceaccounts controller's ServiceAccount.
 */
export const PER_NAMESPACE_OBJECTS: readonly string[] = ["kube-root-ca.crt", "default"];

/** The names of a list's items, without the per-namespace objects of ConfigMaps and ServiceAccounts. */
export function names(l: KubeList): string[] {
  const kind = l.kind;
  return l.items.map((i) => i.metadata.name ?? "").filter((n) =>
    !(kind === "ConfigMapList" && n === "kube-root-ca.crt") &&
    !(kind === "ServiceAccountList" && n === "default")
  );
}

/** Creates a namespace and returns its name. */
export async function createNamespace(t: TestServer, name: string): Promise<string> {
  const r = await call(t, "POST", "/api/v1/namespaces", { metadata: { name } });
  assertOk(r, 201);
  return name;
}

/** Creates a ConfigMap in `ns` and returns it. */
export async function createConfigMap(
  t: TestServer,
  ns: string,
  name: string,
  extra: Partial<KubeObject> = {},
): Promise<KubeObject> {
  const r = await call(t, "POST", `/api/v1/namespaces/${ns}/configmaps`, {
    ...extra,
    metadata: { name, ...(extra.metadata ?? {}) },
  });
  return assertOk(r, 201);
}
