/**
 * Helpers of the admission webhook end-to-end tests: a webhook server with its own CA, the
 * configuration and object bodies, and HTTP calls to the test server.
 *
 * @module
 */
import assert from "node:assert/strict";
import { createCA, issueCertificate } from "../../shared/pki/issue_certificate.ts";
import type { TestServer } from "../support/test_server.ts";

export type Json = Record<string, unknown>;
export type Review = { request: Json };
export type Answer = Json | ((review: Review) => Json | Promise<Json>);

/** A webhook server: each path answers with `allowed` and an optional patch. */
export class HookServer {
  readonly seen: { path: string; review: Review; query: string }[] = [];
  readonly answers = new Map<string, Answer>();
  #server?: Deno.HttpServer<Deno.NetAddr>;
  caBundle = "";

  async start(): Promise<number> {
    const ca = await createCA("hooks-ca");
    const serving = await issueCertificate({
      ca,
      commonName: "hooks",
      dnsNames: ["hooks.webhooks.svc"],
      ipAddresses: ["127.0.0.1"],
      usages: "server",
    });
    this.caBundle = btoa(ca.certPem);
    this.#server = Deno.serve({
      hostname: "0.0.0.0",
      port: 0,
      cert: serving.certPem,
      key: serving.keyPem,
      onListen() {},
      onError: () => new Response("error", { status: 500 }),
    }, async (req) => {
      const url = new URL(req.url);
      const review = await req.json() as Review;
      this.seen.push({ path: url.pathname, review, query: url.search });
      const answer = this.answers.get(url.pathname) ?? {};
      const response = typeof answer === "function" ? await answer(review) : answer;
      return Response.json({
        apiVersion: "admission.k8s.io/v1",
        kind: "AdmissionReview",
        response: { uid: review.request.uid, allowed: true, ...response },
      });
    });
    return this.#server.addr.port;
  }

  calls(path: string): Review[] {
    return this.seen.filter((s) => s.path === path).map((s) => s.review);
  }

  async stop(): Promise<void> {
    await this.#server?.shutdown();
  }
}

export const patch = (ops: unknown[]) => ({
  patchType: "JSONPatch",
  patch: btoa(JSON.stringify(ops)),
});

export async function call(ts: TestServer, method: string, path: string, body?: unknown) {
  const res = await ts.fetch(path, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() as Json, headers: res.headers };
}

/** Calls `f` until `done` holds for its answer (a change reaches the plugins within a second). */
export async function waitFor<T>(f: () => Promise<T>, done: (t: T) => boolean): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const got = await f();
    if (done(got) || Date.now() > deadline) return got;
    await new Promise((r) => setTimeout(r, 100));
  }
}

export const MWC = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations";
export const VWC = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";

export function hook(name: string, clientConfig: Json, extra: Json = {}): Json {
  return {
    name,
    clientConfig,
    rules: [{
      operations: ["CREATE", "UPDATE"],
      apiGroups: [""],
      apiVersions: ["v1"],
      resources: ["configmaps"],
    }],
    sideEffects: "None",
    admissionReviewVersions: ["v1"],
    ...extra,
  };
}

export function configMap(name: string, labels: Record<string, string> = {}): Json {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, labels }, data: { k: "v" } };
}

export async function createNamespace(
  ts: TestServer,
  name: string,
  labels: Record<string, string> = {},
) {
  const r = await call(ts, "POST", "/api/v1/namespaces", { metadata: { name, labels } });
  assert.equal(r.status, 201, JSON.stringify(r.body));
}

/** What every step uses. */
export interface Ctx {
  ts: TestServer;
  hooks: HookServer;
  port: number;
  url: (path: string) => Json;
  cms: (ns: string) => string;
}
