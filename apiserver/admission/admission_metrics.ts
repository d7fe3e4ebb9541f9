/**
 * The admission metrics of kube-apiserver (k8s.io/apiserver/pkg/admission/metrics):
 * `apiserver_admission_step_admission_duration_seconds` per phase and
 * `apiserver_admission_controller_admission_duration_seconds` per plugin, with kube's buckets.
 *
 * @module
 */
import type { AdmissionObserver } from "../registry/generic/admission.ts";
import type { MetricsRegistry } from "../metrics/mod.ts";

/** kube's buckets of the step and controller latency histograms. */
export const ADMISSION_BUCKETS: readonly number[] = [0.005, 0.025, 0.1, 0.5, 1.0, 2.5];

/** Registers the histograms in `registry`; returns the chain's observer that fills them. */
export function admissionMetrics(registry: MetricsRegistry): AdmissionObserver {
  const step = registry.histogram({
    name: "apiserver_admission_step_admission_duration_seconds",
    help:
      "Admission sub-step latency histogram in seconds, broken out for each operation and API resource and step type (validate or admit).",
    labels: ["operation", "rejected", "type"],
    buckets: ADMISSION_BUCKETS,
    stabilityLevel: "STABLE",
  });
  const controller = registry.histogram({
    name: "apiserver_admission_controller_admission_duration_seconds",
    help:
      "Admission controller latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).",
    labels: ["name", "operation", "rejected", "type"],
    buckets: ADMISSION_BUCKETS,
    stabilityLevel: "STABLE",
  });
  return {
    step(type, operation, rejected, seconds) {
      step.observe({ type, operation, rejected: String(rejected) }, seconds);
    },
    plugin(name, type, operation, rejected, seconds) {
      controller.observe({ name, type, operation, rejected: String(rejected) }, seconds);
    },
  };
}
