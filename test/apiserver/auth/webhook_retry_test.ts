/** kube's webhook retry: which errors are retried, how long the pauses are, how many attempts. */
import assert from "node:assert/strict";
import {
  DEFAULT_AUTH_WEBHOOK_RETRY_BACKOFF,
  shouldRetryWebhook,
  WebhookStatusError,
  withExponentialBackoff,
} from "../../../apiserver/auth/webhook_retry.ts";

/** A clock that records the pauses instead of sleeping; `random()` is always `r`. */
function fakeClock(r: number) {
  const pauses: number[] = [];
  return { pauses, sleep: (ms: number) => (pauses.push(ms), Promise.resolve()), random: () => r };
}

Deno.test("shouldRetryWebhook() retries 429, 5xx, Retry-After and resets, not the rest", () => {
  for (const status of [429, 500, 502, 503, 504]) {
    assert.ok(shouldRetryWebhook(new WebhookStatusError(status, 0)), `${status}`);
  }
  for (const status of [400, 401, 403, 404, 422]) {
    assert.ok(!shouldRetryWebhook(new WebhookStatusError(status, 0)), `${status}`);
  }
  assert.ok(shouldRetryWebhook(new WebhookStatusError(409, 3)));
  assert.ok(shouldRetryWebhook(new TypeError("error sending request: connection reset by peer")));
  assert.ok(!shouldRetryWebhook(new TypeError("error sending request: connection refused")));
  assert.ok(!shouldRetryWebhook(new DOMException("Signal timed out.", "TimeoutError")));
  assert.ok(!shouldRetryWebhook(new Error("the answer is not a SubjectAccessReview")));
});

Deno.test("withExponentialBackoff() pauses 500, 750, 1125, 1687.5 ms (plus jitter) over 5 attempts", async () => {
  const clock = fakeClock(0);
  let calls = 0;
  await assert.rejects(
    withExponentialBackoff(
      DEFAULT_AUTH_WEBHOOK_RETRY_BACKOFF,
      () => {
        calls++;
        return Promise.reject(new WebhookStatusError(500, 0));
      },
      undefined,
      clock,
    ),
    (err) => err instanceof WebhookStatusError && err.status === 500,
  );
  assert.equal(calls, 5);
  assert.deepEqual(clock.pauses, [500, 750, 1125, 1687.5]);
  const jittered = fakeClock(1);
  await assert.rejects(withExponentialBackoff(
    DEFAULT_AUTH_WEBHOOK_RETRY_BACKOFF,
    () => Promise.reject(new WebhookStatusError(503, 0)),
    undefined,
    jittered,
  ));
  assert.deepEqual(jittered.pauses, [600, 900, 1350, 2025]);
});

Deno.test("withExponentialBackoff() returns the first success and stops on a final error", async () => {
  const clock = fakeClock(0);
  let calls = 0;
  const v = await withExponentialBackoff(
    DEFAULT_AUTH_WEBHOOK_RETRY_BACKOFF,
    () => {
      calls++;
      return calls < 3 ? Promise.reject(new WebhookStatusError(429, 0)) : Promise.resolve("ok");
    },
    undefined,
    clock,
  );
  assert.equal(v, "ok");
  assert.equal(calls, 3);
  assert.deepEqual(clock.pauses, [500, 750]);
  calls = 0;
  await assert.rejects(withExponentialBackoff(
    DEFAULT_AUTH_WEBHOOK_RETRY_BACKOFF,
    () => {
      calls++;
      return Promise.reject(new WebhookStatusError(403, 0));
    },
    undefined,
    fakeClock(0),
  ));
  assert.equal(calls, 1);
});
