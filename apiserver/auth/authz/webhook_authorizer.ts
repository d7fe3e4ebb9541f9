/**
 * The Webhook authorizer: a SubjectAccessReview (`authorization.k8s.io/v1beta1` or `v1`) is
 * posted to the service a kubeconfig names, and its answer is the decision (allowed: allow;
 * denied: deny; else no opinion). Answers are cached under the SHA-256 of the review, allowed
 * ones for `authorizedTTL` (5m), the others for `unauthorizedTTL` (30s). A call that fails,
 * times out or answers garbage follows the failure policy: `NoOpinion` moves on, `Deny`
 * rejects. Match conditions (CEL over the v1 review spec as `request`) decide whether the
 * webhook is asked at all: any false skips it; an error with none false follows the failure
 * policy.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { type ClientConfig, loadKubeconfig } from "../../../shared/client/kubeconfig.ts";
import type { WebhookAuthorizerConfig } from "./authorization_configuration.ts";
import {
  authorizationMatchEnvironment,
  type CelEnvironment,
  type CelProgram,
} from "../../cel/mod.ts";
import type { Authorizer, AuthzAttributes, Decision } from "./authorizer.ts";

/** Options of one webhook authorizer. */
export interface WebhookAuthorizerOptions {
  /** The authorizer's name (metrics, reasons). */
  name?: string;
  config: ClientConfig;
  subjectAccessReviewVersion: "v1" | "v1beta1";
  authorizedTTLMs: number;
  unauthorizedTTLMs: number;
  /** Per-call timeout, ms (default 30 s). */
  timeoutMs?: number;
  failurePolicy: "NoOpinion" | "Deny";
  /** Compiled match conditions and the environment they were compiled in. */
  matchConditions?: CelProgram[];
  matchEnv?: CelEnvironment;
  now?: () => number;
}

const CACHE_MAX = 10_000;

/** The v1 SubjectAccessReview spec of a request. */
export function reviewSpec(a: AuthzAttributes): Record<string, unknown> {
  const spec: Record<string, unknown> = a.isResourceRequest
    ? {
      resourceAttributes: {
        namespace: a.namespace,
        verb: a.verb,
        group: a.apiGroup,
        version: a.apiVersion,
        resource: a.resource,
        subresource: a.subresource,
        name: a.name,
      },
    }
    : { nonResourceAttributes: { path: a.path, verb: a.verb } };
  spec.user = a.user.username;
  spec.groups = a.user.groups;
  if (a.user.extra && Object.keys(a.user.extra).length) spec.extra = a.user.extra;
  if (a.user.uid) spec.uid = a.user.uid;
  return spec;
}

/** Asks a remote SubjectAccessReview service. */
export class WebhookAuthorizer implements Authorizer {
  readonly name: string;
  readonly #o: WebhookAuthorizerOptions;
  readonly #client: Deno.HttpClient;
  readonly #cache = new Map<string, { decision: Decision; until: number }>();
  readonly #now: () => number;
  /** Calls made to the webhook (tests count them). */
  calls = 0;

  constructor(o: WebhookAuthorizerOptions) {
    this.#o = o;
    this.name = o.name ?? "webhook";
    this.#now = o.now ?? (() => Date.now());
    const tls: Deno.CreateHttpClientOptions & { cert?: string; key?: string } = {};
    if (o.config.caPem) tls.caCerts = [o.config.caPem];
    if (o.config.clientCertPem && o.config.clientKeyPem) {
      tls.cert = o.config.clientCertPem;
      tls.key = o.config.clientKeyPem;
    }
    this.#client = Deno.createHttpClient(tls);
  }

  /** Releases the HTTP client. */
  close(): void {
    this.#client.close();
  }

  async authorize(attrs: AuthzAttributes): Promise<Decision> {
    const spec = reviewSpec(attrs);
    const matched = this.#matches(spec);
    if (matched === false) return { decision: "noOpinion", reason: "" };
    if (typeof matched === "string") return this.#failed(matched);
    const key = createHash("sha256").update(JSON.stringify(spec)).digest("base64");
    const now = this.#now();
    const hit = this.#cache.get(key);
    if (hit && hit.until > now) return hit.decision;
    if (hit) this.#cache.delete(key);
    let decision: Decision;
    try {
      decision = await this.#review(spec);
    } catch (err) {
      return this.#failed(`error contacting webhook: ${(err as Error).message}`);
    }
    const ttl = decision.decision === "allow" ? this.#o.authorizedTTLMs : this.#o.unauthorizedTTLMs;
    if (ttl > 0) {
      if (this.#cache.size >= CACHE_MAX) this.#cache.delete(this.#cache.keys().next().value!);
      this.#cache.set(key, { decision, until: now + ttl });
    }
    return decision;
  }

  /** True: ask; false: skip; a string: an evaluation error and none false. */
  #matches(spec: Record<string, unknown>): boolean | string {
    const conditions = this.#o.matchConditions ?? [];
    if (conditions.length === 0) return true;
    const env = this.#o.matchEnv ??= authorizationMatchEnvironment();
    const vars = env.activation({ request: spec });
    let error: string | undefined;
    for (const c of conditions) {
      const r = c.evaluate(vars);
      if (!r.ok) error ??= `match condition ${JSON.stringify(c.expression)}: ${r.error.message}`;
      else if (r.value === false) return false;
    }
    return error ?? true;
  }

  #failed(reason: string): Decision {
    return this.#o.failurePolicy === "Deny"
      ? { decision: "deny", reason }
      : { decision: "noOpinion", reason };
  }

  async #review(spec: Record<string, unknown>): Promise<Decision> {
    const version = this.#o.subjectAccessReviewVersion;
    const sent = { ...spec };
    if (version === "v1beta1") {
      sent.group = sent.groups;
      delete sent.groups;
    }
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json",
    };
    if (this.#o.config.token) headers.authorization = `Bearer ${this.#o.config.token}`;
    this.calls++;
    const res = await fetch(this.#o.config.server, {
      method: "POST",
      headers,
      body: JSON.stringify({
        apiVersion: `authorization.k8s.io/${version}`,
        kind: "SubjectAccessReview",
        metadata: { creationTimestamp: null },
        spec: sent,
        status: { allowed: false },
      }),
      client: this.#client,
      signal: AbortSignal.timeout(this.#o.timeoutMs ?? 30_000),
    });
    const text = await res.text();
    if (res.status < 200 || res.status >= 300) throw new Error(`HTTP ${res.status}`);
    let status: Record<string, unknown>;
    try {
      status = JSON.parse(text).status ?? {};
    } catch {
      throw new Error("the answer is not a SubjectAccessReview");
    }
    const reason = typeof status.reason === "string" ? status.reason : "";
    if (status.allowed === true) return { decision: "allow", reason };
    if (status.denied === true) return { decision: "deny", reason };
    return { decision: "noOpinion", reason };
  }
}

/** The webhook authorizer of an `--authorization-config` entry (its kubeconfig read now). */
export async function webhookFromConfig(
  name: string,
  w: WebhookAuthorizerConfig,
): Promise<WebhookAuthorizer> {
  let config;
  try {
    config = await loadKubeconfig(w.kubeConfigFile);
  } catch (err) {
    throw new Error(
      `--authorization-config: authorizer ${name}: ${w.kubeConfigFile}: ${(err as Error).message}`,
    );
  }
  return new WebhookAuthorizer({
    name,
    config,
    subjectAccessReviewVersion: w.subjectAccessReviewVersion,
    authorizedTTLMs: w.authorizedTTLMs,
    unauthorizedTTLMs: w.unauthorizedTTLMs,
    timeoutMs: w.timeoutMs,
    failurePolicy: w.failurePolicy,
    matchConditions: w.matchConditions,
    matchEnv: w.matchEnv,
  });
}
