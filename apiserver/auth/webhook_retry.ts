/**
 * Retries of the token-review and subject-access-review webhooks, as Kubernetes' generic
 * webhook client does them: a call failing with a transient error (HTTP 429, any 5xx, a
 * `Retry-After`, a reset connection) is tried again after an exponentially growing, jittered
 * pause, at most `steps` times in all (kube's DefaultAuthWebhookRetryBackoff: 500 ms, factor
 * 1.5, jitter 0.2, 5 steps). Other errors (a 4xx, a timeout, a refused connection, a malformed
 * answer) end the call at once. The last error is what the caller sees.
 *
 * @module
 */

/** Exponential backoff parameters (k8s.io/apimachinery wait.Backoff). */
export interface RetryBackoff {
  /** The first pause, ms. */
  durationMs: number;
  /** Each pause is the previous one times this. */
  factor: number;
  /** Up to this fraction of a pause is added at random. */
  jitter: number;
  /** Attempts in all. */
  steps: number;
}

/** kube-apiserver's backoff for its authentication and authorization webhooks. */
export const DEFAULT_AUTH_WEBHOOK_RETRY_BACKOFF: Readonly<RetryBackoff> = {
  durationMs: 500,
  factor: 1.5,
  jitter: 0.2,
  steps: 5,
};

/** A webhook answered outside 2xx. */
export class WebhookStatusError extends Error {
  constructor(readonly status: number, readonly retryAfterSeconds: number) {
    super(`the webhook answered HTTP ${status}`);
  }
}

/** The error for a non-2xx response (its Retry-After, when a number of seconds, kept). */
export function webhookStatusError(res: Response): WebhookStatusError {
  const after = Number(res.headers.get("retry-after") ?? "");
  return new WebhookStatusError(res.status, Number.isInteger(after) && after > 0 ? after : 0);
}

/**
 * kube's DefaultShouldRetry: a reset connection, an internal error (500 and the other 5xx),
 * a gateway timeout (504), too many requests (429) or an answer asking for a delay.
 */
export function shouldRetryWebhook(err: unknown): boolean {
  if (err instanceof WebhookStatusError) {
    return err.status === 429 || err.status >= 500 || err.retryAfterSeconds > 0;
  }
  const message = err instanceof Error ? err.message : "";
  return /connection reset|ECONNRESET/i.test(message);
}

/** Where the pauses come from (tests inject their own). */
export interface RetryClock {
  sleep(ms: number): Promise<void>;
  random(): number;
}

const REAL_CLOCK: RetryClock = {
  sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
  random: Math.random,
};

/**
 * Calls `fn` until it succeeds, fails with an error `shouldRetry` refuses, or `backoff.steps`
 * attempts are spent; pauses between attempts grow by `factor` with up to `jitter` added.
 */
export async function withExponentialBackoff<T>(
  backoff: RetryBackoff,
  fn: () => Promise<T>,
  shouldRetry: (err: unknown) => boolean = shouldRetryWebhook,
  clock: RetryClock = REAL_CLOCK,
): Promise<T> {
  let pause = backoff.durationMs;
  for (let attempt = 1;; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (!shouldRetry(err) || attempt >= Math.max(1, backoff.steps)) throw err;
    }
    const jittered = backoff.jitter > 0 ? pause + clock.random() * backoff.jitter * pause : pause;
    pause *= backoff.factor || 1;
    await clock.sleep(jittered);
  }
}
