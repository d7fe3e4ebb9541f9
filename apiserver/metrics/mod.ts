/**
 * Prometheus metrics for the API server: registry with the metric lifecycle, metric types,
 * the API server's predefined metrics and the `/metrics` handler.
 *
 * @module
 */
export {
  type ApiServerMetrics,
  createApiServerMetrics,
  dryRunLabel,
  reportedVerb,
  REQUEST_DURATION_BUCKETS,
  type RequestObservation,
} from "./apiserver_metrics.ts";
export {
  escapeHelp,
  escapeLabelValue,
  EXPOSITION_CONTENT_TYPE,
  formatFloat,
} from "./exposition_format.ts";
export {
  type Collector,
  Counter,
  DEFAULT_BUCKETS,
  exponentialBuckets,
  Gauge,
  Histogram,
  type HistogramOptions,
  type Labels,
  type MetricOptions,
  type StabilityLevel,
} from "./metric.ts";
export { metricsHandler } from "./metrics_handler.ts";
export { recordFeatureInfo } from "./feature_metrics.ts";
export { MetricsRegistry, type MetricsRegistryOptions } from "./metrics_registry.ts";
export {
  CURRENT_VERSION,
  type MetricsFlags,
  MetricsLifecycle,
  type MetricsLifecycleOptions,
  type MetricState,
  parseMinorVersion,
  validateMetricsFlags,
} from "./metrics_lifecycle.ts";
export { createSliMetrics, type SliMetrics } from "./sli_metrics.ts";
