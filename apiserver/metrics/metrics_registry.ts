/**
 * MetricsRegistry: the set of metrics one process exposes, with the metric lifecycle
 * (deprecated metrics annotated, hidden three releases after deprecation unless
 * `--show-hidden-metrics-for-version` asks for them).
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

/** The Kubernetes minor release this server emulates, for the metric lifecycle. */
export const CURRENT_VERSION = "1.32";

/** Options of {@link MetricsRegistry}. */
export interface MetricsRegistryOptions {
  /** `<major>.<minor>` of this release; default {@link CURRENT_VERSION}. */
  currentVersion?: string;
  /** Called with each lifecycle warning (deprecated metric registered, hidden metric shown). */
  onWarning?: (message: string) => void;
}

/** A release as major and minor numbers. */
interface MinorVersion {
  major: number;
  minor: number;
}

/** Parses `1.29`, `1.29.0` or `v1.29.3` into major and minor; undefined if malformed. */
export function parseMinorVersion(text: string): MinorVersion | undefined {
  const m = /^v?(\d+)\.(\d+)(?:\.\d+)?$/.exec(text.trim());
  return m ? { major: Number(m[1]), minor: Number(m[2]) } : undefined;
}

type AnyMetric = Metric<unknown>;

/**
 * A registry of metrics and their lifecycle state.
 *
 * Lifecycle (spec "Metric lifecycle"): a metric whose `deprecatedVersion` is at or before the
 * current release is deprecated: its description is prefixed `(Deprecated since X)` and a
 * warning is emitted at registration. It is hidden (not exposed) once the deprecated version is
 * the current minor minus 3 or older, unless `--show-hidden-metrics-for-version` names the
 * previous minor, which shows the metrics that release still exposed.
 */
export class MetricsRegistry {
  #metrics = new Map<string, AnyMetric>();
  #current: MinorVersion;
  #showHiddenFor: MinorVersion | undefined;
  #onWarning: (message: string) => void;

  /**
   * Creates an empty registry.
   *
   * @throws {TypeError} when `currentVersion` is malformed.
   */
  constructor(options: MetricsRegistryOptions = {}) {
    const current = parseMinorVersion(options.currentVersion ?? CURRENT_VERSION);
    if (!current) throw new TypeError(`invalid current version "${options.currentVersion}"`);
    this.#current = current;
    this.#onWarning = options.onWarning ?? (() => {});
  }

  /**
   * Applies `--show-hidden-metrics-for-version`; returns an error message for a value other
   * than empty or the previous minor release (as Kubernetes validates it).
   */
  setShowHiddenMetricsForVersion(value: string): string | undefined {
    if (value === "") {
      this.#showHiddenFor = undefined;
      return undefined;
    }
    const valid = `${this.#current.major}.${this.#current.minor - 1}`;
    if (value !== valid) {
      return `--show-hidden-metrics-for-version must be omitted or have the value '${valid}'. Only the previous minor version is allowed`;
    }
    this.#showHiddenFor = parseMinorVersion(value);
    for (const metric of this.#metrics.values()) {
      if (this.#hiddenAt(metric, this.#current) && !this.isHidden(metric.name)) {
        this.#onWarning(
          `Hidden metrics (${metric.name}) have been manually overridden, showing this very deprecated metric.`,
        );
      }
    }
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
    if (this.#isDeprecated(metric)) {
      this.#onWarning(
        `This metric (${metric.name}) has been deprecated since ${metric.deprecatedVersion}${
          this.isHidden(metric.name) ? " and is hidden" : ""
        }.`,
      );
    }
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

  /** Whether the named metric is registered but hidden from exposition. */
  isHidden(name: string): boolean {
    const metric = this.#metrics.get(name);
    if (!metric || !this.#hiddenAt(metric, this.#current)) return false;
    return !(this.#showHiddenFor && !this.#hiddenAt(metric, this.#showHiddenFor));
  }

  /** The description as exposed: `[LEVEL] (Deprecated since X) help`. */
  describe(metric: AnyMetric): string {
    const deprecated = this.#isDeprecated(metric)
      ? `(Deprecated since ${metric.deprecatedVersion}) `
      : "";
    return `[${metric.stabilityLevel}] ${deprecated}${metric.help}`;
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

  #isDeprecated(metric: AnyMetric): boolean {
    const v = metric.deprecatedVersion && parseMinorVersion(metric.deprecatedVersion);
    if (!v) return false;
    return v.major < this.#current.major ||
      (v.major === this.#current.major && v.minor <= this.#current.minor);
  }

  #hiddenAt(metric: AnyMetric, release: MinorVersion): boolean {
    const v = metric.deprecatedVersion && parseMinorVersion(metric.deprecatedVersion);
    if (!v) return false;
    return v.major < release.major || (v.major === release.major && v.minor <= release.minor - 3);
  }
}
