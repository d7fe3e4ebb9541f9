/**
 * Webhook token authentication (`--authentication-token-webhook-config-file`): a bearer token
 * is sent in a TokenReview (`authentication.k8s.io/v1beta1` by default, or `v1`) to the
 * service named by a kubeconfig file, and its answer is honoured. Answers, positive or
 * negative, are cached for `--authentication-token-webhook-cache-ttl` (default 2m) under the
 * token's SHA-256, never the token itself. A transient failure (429, 5xx, a reset connection)
 * is retried with kube's backoff (webhook_retry.ts); a webhook that still fails makes the
 * request 401 and is not cached.
 *
 * @module
 */
import { ReviewWebhookClient } from "../review_webhook_client.ts";
import { createHash } from "node:crypto";
import type { ClientConfig } from "../../../shared/client/kubeconfig.ts";
import type { UserInfo } from "../../../shared/api/authentication/v1/user_info.ts";
import {
  type AuthContext,
  type Authenticator,
  type AuthResult,
  bearerToken,
} from "./authenticator.ts";
import {
  DEFAULT_AUTH_WEBHOOK_RETRY_BACKOFF,
  type RetryBackoff,
  type RetryClock,
  withExponentialBackoff,
} from "../webhook_retry.ts";

/** Options of the webhook token authenticator. */
export interface WebhookTokenOptions {
  /** Where the webhook is and how to reach it (from the kubeconfig file). */
  config: ClientConfig;
  /** TokenReview version sent: `v1beta1` (Kubernetes' default) or `v1`. */
  version?: "v1" | "v1beta1";
  /** How long answers are cached, ms (default 2 minutes; 0 disables the cache). */
  cacheTtlMs?: number;
  /** Audiences sent with each review when the request names none (the API audiences). */
  apiAudiences?: string[];
  /** Per-call timeout, ms (default 10 s; Kubernetes allows at most 30 s). */
  timeoutMs?: number;
  /** Retries of transient failures (default kube's: 500 ms × 1.5, jitter 0.2, 5 attempts). */
  retryBackoff?: RetryBackoff;
  /** The pauses between retries (tests inject one). */
  retryClock?: RetryClock;
  now?: () => number;
}

type Answer =
  | { ok: true; user: UserInfo; audiences?: string[] }
  | { ok: false; reason: string };

function stringList(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

/** Authenticates bearer tokens by asking a remote TokenReview service. */
export class WebhookTokenAuthenticator implements Authenticator {
  readonly name = "webhook";
  readonly #opts: WebhookTokenOptions;
  readonly #client: ReviewWebhookClient;
  readonly #cache = new Map<string, { answer: Answer; until: number }>();
  readonly #now: () => number;

  constructor(opts: WebhookTokenOptions) {
    this.#opts = opts;
    this.#now = opts.now ?? (() => Date.now());
    this.#client = new ReviewWebhookClient(opts.config, opts.timeoutMs ?? 10_000);
  }

  /** Releases the HTTP client. */
  close(): void {
    this.#client.close();
  }

  async authenticate(req: Request, _conn: unknown, ctx?: AuthContext): Promise<AuthResult> {
    const token = bearerToken(req);
    if (token === undefined) return { kind: "none" };
    const audiences = ctx?.audiences?.length ? ctx.audiences : this.#opts.apiAudiences ?? [];
    const key = createHash("sha256").update(token).update("\0" + audiences.join("\0")).digest(
      "base64",
    );
    const ttl = this.#opts.cacheTtlMs ?? 120_000;
    const now = this.#now();
    let cached = this.#cache.get(key);
    if (cached && cached.until <= now) {
      this.#cache.delete(key);
      cached = undefined;
    }
    let answer: Answer;
    if (cached) {
      answer = cached.answer;
    } else {
      try {
        answer = await this.#review(token, audiences);
      } catch (err) {
        return {
          kind: "invalid",
          method: this.name,
          reason: `webhook token authenticator: ${(err as Error).message}`,
        };
      }
      if (ttl > 0) {
        if (this.#cache.size >= 10_000) this.#cache.clear();
        this.#cache.set(key, { answer, until: now + ttl });
      }
    }
    if (!answer.ok) return { kind: "invalid", method: this.name, reason: answer.reason };
    return {
      kind: "user",
      method: this.name,
      user: structuredClone(answer.user),
      ...(answer.audiences ? { audiences: answer.audiences } : {}),
    };
  }

  async #review(token: string, audiences: string[]): Promise<Answer> {
    const version = this.#opts.version ?? "v1beta1";
    const body = {
      apiVersion: `authentication.k8s.io/${version}`,
      kind: "TokenReview",
      metadata: { creationTimestamp: null },
      spec: { token, ...(audiences.length ? { audiences } : {}) },
      status: { user: {} },
    };
    const text = await withExponentialBackoff(
      this.#opts.retryBackoff ?? DEFAULT_AUTH_WEBHOOK_RETRY_BACKOFF,
      () => this.#client.post(JSON.stringify(body)),
      undefined,
      this.#opts.retryClock,
    );
    let review: { status?: Record<string, unknown> };
    try {
      review = JSON.parse(text);
    } catch {
      throw new Error("the webhook's answer is not JSON");
    }
    const status = review.status ?? {};
    if (status.authenticated !== true) {
      const why = typeof status.error === "string" && status.error ? `: ${status.error}` : "";
      return { ok: false, reason: `the webhook rejected the token${why}` };
    }
    const u = (status.user ?? {}) as Record<string, unknown>;
    if (typeof u.username !== "string" || u.username === "") {
      return { ok: false, reason: "the webhook authenticated the token without a user name" };
    }
    const user: UserInfo = { username: u.username, groups: stringList(u.groups) };
    if (typeof u.uid === "string" && u.uid) user.uid = u.uid;
    if (typeof u.extra === "object" && u.extra !== null) {
      const extra: Record<string, string[]> = {};
      for (const [k, v] of Object.entries(u.extra)) extra[k] = stringList(v);
      if (Object.keys(extra).length) user.extra = extra;
    }
    const answered = stringList(status.audiences);
    if (audiences.length && answered.length) {
      const matched = answered.filter((a) => audiences.includes(a));
      if (matched.length === 0) {
        return { ok: false, reason: "the webhook's audiences do not match the requested ones" };
      }
      return { ok: true, user, audiences: matched };
    }
    return { ok: true, user, ...(audiences.length ? { audiences } : {}) };
  }
}
