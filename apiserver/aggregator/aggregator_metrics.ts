/**
 * kube-aggregator's availability metrics (1.32, ALPHA): `aggregator_unavailable_apiservice`,
 * a gauge per APIService (1 while its `Available` condition is not True), and
 * `aggregator_unavailable_apiservice_total`, counted by name and reason each time an
 * APIService turns unavailable. Proxied requests are counted, as in kube, by the request
 * metrics (`apiserver_request_total` and the duration histogram, by group and resource).
 *
 * @module
 */
import type { Counter, MetricsRegistry } from "../metrics/mod.ts";
import type { ApiServiceCache } from "./api_service_cache.ts";

/** The counter the availability controller increments. */
export interface AggregatorMetrics {
  unavailableTotal: Counter;
}

/** Defines the metrics in `registry`; the gauge reads `cache` at each scrape. */
export function aggregatorMetrics(
  registry: MetricsRegistry,
  cache: ApiServiceCache,
): AggregatorMetrics {
  const gauge = registry.gauge({
    name: "aggregator_unavailable_apiservice",
    help: "Gauge of APIServices which are marked as unavailable broken down by APIService name.",
    labels: ["name"],
    stabilityLevel: "ALPHA",
  });
  gauge.setCollector(() => cache.all().map((a) => [{ name: a.name }, a.available ? 0 : 1]));
  const unavailableTotal = registry.counter({
    name: "aggregator_unavailable_apiservice_total",
    help:
      "Counter of APIServices which are marked as unavailable broken down by APIService name and reason.",
    labels: ["name", "reason"],
    stabilityLevel: "ALPHA",
  });
  return { unavailableTotal };
}
