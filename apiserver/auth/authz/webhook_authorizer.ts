/**
 * The Webhook authorizer: a SubjectAccessReview (`authorization.k8s.io/v1beta1` or `v1`) is
 * posted to the service a kubeconfig names, and its answer is the decision (allowed: allow;
 * denied: deny; else no opinion). Answers are cached under the SHA-256 of the review, allowed
 * ones for `authorizedTTL` (5m), the others for `unauthorizedTTL` (30s). A call that fails,
 * times out or answers garbage follows the failure policy: `NoOpinion` moves on, `Deny`
 * rejects; transient failures (429, 5xx, a reset connection) are first retried with kube's
 * backoff (webhook_retry.ts). Match conditions (CEL over the v1 review spec as `request`) decide whether the
 * webhook is asked at all: any false skips it; an error with none false follows the failure
 * policy.
 *
 * @module
 */
import { ReviewWebhookClient } from "../review_webhook_client.ts";
import { createHash } from "node:crypto";
import { type ClientConfig, loadKubeconfig } from "../../../shared/client/kubeconfig.ts";
import type { WebhookAuthorizerConfig } from "./authorization_configuration.ts";
import {
  authorizationMatchEnvironment,
  type CelEnvironment,
  type CelProgram,
} from "../../cel/mod.ts";
import type { Authorizer, AuthzAttributes, Decision } from "./authorizer.ts";
import type { Counter, Histogram, MetricsRegistry } from "../../metrics/mod.ts";
import {
  DEFAULT_AUTH_WEBHOOK_RETRY_BACKOFF,
  type RetryBackoff,
  type RetryClock,
  withExponentialBackoff,
} from "../webhook_retry.ts";

/** Kubernetes' webhook authorizer metrics, labelled by authorizer name. */
export interface WebhookAuthorizerMetrics {
  /** `apiserver_authorization_webhook_evaluations_total{name,result}`. */
  evaluations: Counter;
  /** `apiserver_authorization_webhook_duration_seconds{name,result}`. */
  duration: Histogram;
  /** `apiserver_authorization_webhook_evaluations_fail_open_total{name,result}`. */
  failOpen: Counter;
  /** `apiserver_authorization_match_condition_evaluation_errors_total{type,name}`. */
  matchErrors: Counter;
  /** `apiserver_authorization_match_condition_exclusions_total{type,name}`. */
  matchExclusions: Counter;
  /** `apiserver_authorization_match_condition_evaluation_seconds{type,name}`. */
  matchSeconds: Histogram;
}

/** Defines the webhook authorizer metrics in `registry`. */
export function webhookAuthorizerMetrics(registry: MetricsRegistry): WebhookAuthorizerMetrics {
  const byResult = ["name", "result"], byType = ["type", "name"];
  return {
    evaluations: registry.counter({
      name: "apiserver_authorization_webhook_evaluations_total",
      help: "Round-trips to authorization webhooks.",
      labels: byResult,
    }),
    duration: registry.histogram({
      name: "apiserver_authorization_webhook_duration_seconds",
      help: "Request latency in seconds.",
      labels: byResult,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    }),
    failOpen: registry.counter({
      name: "apiserver_authorization_webhook_evaluations_fail_open_total",
      help: "NoOpinion results due to webhook timeout or error.",
      labels: byResult,
    }),
    matchErrors: registry.counter({
      name: "apiserver_authorization_match_condition_evaluation_errors_total",
      help:
        "Total number of errors when an authorization webhook encounters a match condition error split by authorizer type and name.",
      labels: byType,
    }),
    matchExclusions: registry.counter({
      name: "apiserver_authorization_match_condition_exclusions_total",
      help:
        "Total number of exclusions when an authorization webhook is skipped because match conditions exclude it.",
      labels: byType,
    }),
    matchSeconds: registry.histogram({
      name: "apiserver_authorization_match_condition_evaluation_seconds",
      help:
        "Authorization match condition evaluation time in seconds, split by authorizer type and name.",
      labels: byType,
      buckets: [0.001, 0.005, 0.01, 0.025, 0.1, 0.2, 0.25],
    }),
  };
}

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
  metrics?: WebhookAuthorizerMetrics;
  /** Retries of transient failures (default kube's: 500 ms × 1.5, jitter 0.2, 5 attempts). */
  retryBackoff?: RetryBackoff;
  /** The pauses between retries (tests inject one). */
  retryClock?: RetryClock;
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
  readonly #client: ReviewWebhookClient;
  readonly #cache = new Map<string, { decision: Decision; until: number }>();
  readonly #now: () => number;
  /** Calls made to the webhook (tests count them). */
  calls = 0;

  constructor(o: WebhookAuthorizerOptions) {
    this.#o = o;
    this.name = o.name ?? "webhook";
    this.#now = o.now ?? (() => Date.now());
    this.#client = new ReviewWebhookClient(o.config, o.timeoutMs ?? 30_000);
  }

  /** Releases the HTTP client. */
  close(): void {
    this.#client.close();
  }

  async authorize(attrs: AuthzAttributes): Promise<Decision> {
    const spec = reviewSpec(attrs);
    const matched = this.#matches(spec);
    const labels = { type: "Webhook", name: this.name };
    if (matched === false) {
      this.#o.metrics?.matchExclusions.inc(labels);
      return { decision: "noOpinion", reason: "" };
    }
    if (typeof matched === "string") {
      this.#o.metrics?.matchErrors.inc(labels);
      return this.#failed(matched);
    }
    const key = createHash("sha256").update(JSON.stringify(spec)).digest("base64");
    const now = this.#now();
    const hit = this.#cache.get(key);
    if (hit && hit.until > now) return hit.decision;
    if (hit) this.#cache.delete(key);
    let decision: Decision;
    const start = performance.now();
    try {
      decision = await this.#review(spec);
      this.#observe("success", start);
    } catch (err) {
      const result = (err as Error).name === "TimeoutError" ? "timeout" : "error";
      this.#observe(result, start);
      if (this.#o.failurePolicy !== "Deny") {
        this.#o.metrics?.failOpen.inc({ name: this.name, result });
      }
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
    const start = performance.now();
    const vars = env.activation({ request: spec });
    let error: string | undefined, matched = true;
    for (const c of conditions) {
      const r = c.evaluate(vars);
      if (!r.ok) error ??= `match condition ${JSON.stringify(c.expression)}: ${r.error.message}`;
      else if (r.value === false) {
        matched = false;
        break;
      }
    }
    this.#o.metrics?.matchSeconds.observe(
      { type: "Webhook", name: this.name },
      (performance.now() - start) / 1000,
    );
    return matched ? error ?? true : false;
  }

  #observe(result: string, start: number): void {
    this.#o.metrics?.evaluations.inc({ name: this.name, result });
    this.#o.metrics?.duration.observe(
      { name: this.name, result },
      (performance.now() - start) / 1000,
    );
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
    const body = JSON.stringify({
      apiVersion: `authorization.k8s.io/${version}`,
      kind: "SubjectAccessReview",
      metadata: { creationTimestamp: null },
      spec: sent,
      status: { allowed: false },
    });
    const text = await withExponentialBackoff(
      this.#o.retryBackoff ?? DEFAULT_AUTH_WEBHOOK_RETRY_BACKOFF,
      () => (this.calls++, this.#client.post(body)),
      undefined,
      this.#o.retryClock,
    );
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
  metrics?: WebhookAuthorizerMetrics,
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
    metrics,
  });
}
