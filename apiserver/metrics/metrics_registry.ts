/**
 * MetricsRegistry: the set of metrics one endpoint exposes (`/metrics`, `/metrics/slis`), with
 * the metric lifecycle of the process (see {@link MetricsLifecycle}).
 *
 * @module
 */
import {
  Counter,
  Gauge,
  Histogram,
  type HistogramOptions,
  type Metric,
  type MetricOptions,
} from "./metric.ts";
import {
  MetricsLifecycle,
  type MetricsLifecycleOptions,
  parseMinorVersion,
} from "./metrics_lifecycle.ts";

export { CURRENT_VERSION, parseMinorVersion } from "./metrics_lifecycle.ts";

/** Options of {@link MetricsRegistry}. */
export interface MetricsRegistryOptions extends MetricsLifecycleOptions {
  /**
   * The process' lifecycle, shared with its other registries; when given, the other options
   * are ignored. Default: a lifecycle of its own built from the other options.
   */
  lifecycle?: MetricsLifecycle;
}

type AnyMetric = Metric<unknown>;

/**
 * A registry of metrics. Deprecated metrics are annotated, hidden and disabled ones are
 * registered but never exposed; each registration is counted in the lifecycle's meta metrics,
 * which {@link MetricsRegistry.registerMetaMetrics} exposes (Kubernetes does so on `/metrics`).
 */
export class MetricsRegistry {
  /** The lifecycle this registry follows. */
  readonly lifecycle: MetricsLifecycle;
  #metrics = new Map<string, AnyMetric>();

  /**
   * Creates an empty registry.
   *
   * @throws {TypeError} when the lifecycle options are invalid.
   */
  constructor(options: MetricsRegistryOptions = {}) {
    this.lifecycle = options.lifecycle ?? new MetricsLifecycle(options);
  }

  /** Registers the lifecycle's meta metrics (`registered_metrics_total` etc.) here. */
  registerMetaMetrics(): void {
    const { registeredTotal, disabledTotal, hiddenTotal } = this.lifecycle;
    for (const m of [registeredTotal, disabledTotal, hiddenTotal]) this.register(m);
  }

  /**
   * Applies `--show-hidden-metrics-for-version` after registration; returns an error message
   * for a value other than empty or the previous minor release (as Kubernetes validates it).
   * Metrics shown again are counted as registered, with a warning.
   */
  setShowHiddenMetricsForVersion(value: string): string | undefined {
    const hidden = [...this.#metrics.values()].filter((m) => this.isHidden(m.name));
    const error = this.lifecycle.setShowHiddenMetricsForVersion(value);
    if (error) return error;
    for (const m of hidden) if (!this.isHidden(m.name)) this.lifecycle.registered(m);
    return undefined;
  }

  /**
   * Adds a metric.
   *
   * @throws {TypeError} when a metric of that name exists or its deprecated version is
   * malformed.
   */
  register<M extends AnyMetric>(metric: M): M {
    if (this.#metrics.has(metric.name)) {
      throw new TypeError(`duplicate metrics collector registration attempted: ${metric.name}`);
    }
    if (metric.deprecatedVersion !== undefined && !parseMinorVersion(metric.deprecatedVersion)) {
      throw new TypeError(
        `invalid deprecated version "${metric.deprecatedVersion}" of metric ${metric.name}`,
      );
    }
    this.#metrics.set(metric.name, metric);
    this.lifecycle.registered(metric);
    return metric;
  }

  /** Creates and registers a counter. */
  counter(options: MetricOptions): Counter {
    return this.register(new Counter(options));
  }

  /** Creates and registers a gauge. */
  gauge(options: MetricOptions): Gauge {
    return this.register(new Gauge(options));
  }

  /** Creates and registers a histogram. */
  histogram(options: HistogramOptions): Histogram {
    return this.register(new Histogram(options));
  }

  /** The registered metric of that name, if any. */
  get(name: string): AnyMetric | undefined {
    return this.#metrics.get(name);
  }

  /** Whether the named metric is registered but hidden (or disabled) from exposition. */
  isHidden(name: string): boolean {
    const metric = this.#metrics.get(name);
    if (!metric) return false;
    const state = this.lifecycle.state(metric);
    return state === "hidden" || state === "disabled";
  }

  /** The description as exposed: `[LEVEL] (Deprecated since X) help`. */
  describe(metric: AnyMetric): string {
    const deprecated = this.lifecycle.state(metric) === "deprecated"
      ? `(Deprecated since ${metric.deprecatedVersion}) `
      : "";
    return `[${metric.stabilityLevel}] ${deprecated}${metric.help}`;
  }

  /**
   * Drops the series of every metric with labels (Kubernetes resets its vectors; a metric
   * without labels keeps its one sample), as `DELETE /metrics` asks.
   */
  reset(): void {
    for (const metric of this.#metrics.values()) {
      if (metric.labelNames.length > 0) metric.reset();
    }
  }

  /**
   * Renders every visible metric family in the text exposition format 0.0.4, sorted by name,
   * skipping families without samples. Collector gauges are collected first; a collector that
   * fails leaves its gauge out of this scrape.
   */
  async exposition(): Promise<string> {
    const names = [...this.#metrics.keys()].filter((n) => !this.isHidden(n)).sort();
    const lines: string[] = [];
    for (const name of names) {
      const metric = this.#metrics.get(name)!;
      if (metric instanceof Gauge) {
        try {
          await metric.collect();
        } catch {
          metric.reset();
        }
      }
      for (const line of metric.expose(this.describe(metric))) lines.push(line);
    }
    return lines.length ? lines.join("\n") + "\n" : "";
  }
}
