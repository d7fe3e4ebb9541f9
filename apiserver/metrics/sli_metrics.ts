/**
 * The component SLI metrics served on `/metrics/slis`: the result of every health check run
 * by `/healthz`, `/livez` and `/readyz`, as Kubernetes' `slis` package defines them.
 *
 * @module
 */
import type { Counter, Gauge } from "./metric.ts";
import { MetricsRegistry } from "./metrics_registry.ts";

/** Handles to the SLI metrics and their own registry. */
export interface SliMetrics {
  /** The registry behind `/metrics/slis` (sharing the process' metric lifecycle). */
  registry: MetricsRegistry;
  /** `kubernetes_healthcheck{name,type}`: 1 when the last run passed, else 0 (STABLE). */
  healthcheck: Gauge;
  /** `kubernetes_healthchecks_total{name,type,status}` (STABLE). */
  healthchecksTotal: Counter;
  /**
   * Records one check run: `name` is the check, `type` the endpoint (`healthz`, `livez`,
   * `readyz`).
   */
  observeHealthcheck(name: string, type: string, ok: boolean): void;
}

/** Defines the SLI metrics in a new registry following `lifecycleOf`'s lifecycle. */
export function createSliMetrics(lifecycleOf: MetricsRegistry): SliMetrics {
  const registry = new MetricsRegistry({ lifecycle: lifecycleOf.lifecycle });
  const healthcheck = registry.gauge({
    name: "kubernetes_healthcheck",
    help: "This metric records the result of a single healthcheck.",
    labels: ["name", "type"],
    stabilityLevel: "STABLE",
  });
  const healthchecksTotal = registry.counter({
    name: "kubernetes_healthchecks_total",
    help: "This metric records the results of all healthcheck.",
    labels: ["name", "type", "status"],
    stabilityLevel: "STABLE",
  });
  return {
    registry,
    healthcheck,
    healthchecksTotal,
    observeHealthcheck(name, type, ok) {
      healthcheck.set({ name, type }, ok ? 1 : 0);
      healthchecksTotal.inc({ name, type, status: ok ? "success" : "error" });
    },
  };
}
