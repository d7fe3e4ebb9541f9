/**
 * The admission webhook metrics of k8s.io/apiserver/pkg/admission/metrics:
 * `apiserver_admission_webhook_admission_duration_seconds`,
 * `apiserver_admission_webhook_request_total`, `apiserver_admission_webhook_rejection_count`
 * and `apiserver_admission_webhook_fail_open_count`.
 *
 * @module
 */
import type { Counter, Histogram } from "../../metrics/metric.ts";
import type { MetricsRegistry } from "../../metrics/metrics_registry.ts";

/** `type` label: `admit` for mutating webhooks, `validating` for validating ones. */
export type WebhookType = "admit" | "validating";

/** Why a webhook rejected: its answer, a failed call, or the API server's own error. */
export type RejectionErrorType = "no_error" | "calling_webhook_error" | "apiserver_internal_error";

/** The metrics the webhook plugins record. */
export class WebhookMetrics {
  readonly #duration: Histogram;
  readonly #requests: Counter;
  readonly #rejections: Counter;
  readonly #failOpen: Counter;

  constructor(registry: MetricsRegistry) {
    this.#duration = registry.histogram({
      name: "apiserver_admission_webhook_admission_duration_seconds",
      help:
        "Admission webhook latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).",
      labels: ["name", "type", "operation", "rejected"],
      buckets: [0.005, 0.025, 0.1, 0.5, 1.0, 2.5, 10, 25],
      stabilityLevel: "STABLE",
    });
    this.#requests = registry.counter({
      name: "apiserver_admission_webhook_request_total",
      help:
        "Admission webhook request total, identified by name and broken out for each admission type (validating or mutating) and operation. Additional labels specify whether the request was rejected or not and an HTTP status code. Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.",
      labels: ["name", "type", "operation", "code", "rejected"],
    });
    this.#rejections = registry.counter({
      name: "apiserver_admission_webhook_rejection_count",
      help:
        "Admission webhook rejection count, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify an error type (calling_webhook_error or apiserver_internal_error if an error occurred; no_error otherwise) and optionally a non-zero rejection code if the webhook rejects the request with an HTTP status code (honored by the apiserver when the code is greater or equal to 400). Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.",
      labels: ["name", "type", "operation", "error_type", "rejection_code"],
    });
    this.#failOpen = registry.counter({
      name: "apiserver_admission_webhook_fail_open_count",
      help:
        "Admission webhook fail open count, identified by name and broken out for each admission type (validating or admit).",
      labels: ["name", "type"],
    });
  }

  /** One call of a webhook: its duration, whether it rejected, and the HTTP code (0: none). */
  observe(
    name: string,
    type: WebhookType,
    operation: string,
    seconds: number,
    rejected: boolean,
    code: number,
  ): void {
    this.#duration.observe({ name, type, operation, rejected: String(rejected) }, seconds);
    const c = Math.min(code, 600);
    this.#requests.inc({ name, type, operation, code: String(c), rejected: String(rejected) });
  }

  /** One rejection by a webhook. */
  rejection(
    name: string,
    type: WebhookType,
    operation: string,
    errorType: RejectionErrorType,
    code: number,
  ): void {
    const rejection_code = String(Math.min(code, 600));
    this.#rejections.inc({ name, type, operation, error_type: errorType, rejection_code });
  }

  /** One failed call ignored by `failurePolicy: Ignore`. */
  failOpen(name: string, type: WebhookType): void {
    this.#failOpen.inc({ name, type });
  }
}
