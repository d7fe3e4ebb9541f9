/**
 * MetricsLifecycle: the release a process emulates and what the metric flags asked for
 * (`--show-hidden-metrics-for-version`, `--disabled-metrics`), shared by every registry of the
 * process, with Kubernetes' meta metrics `registered_metrics_total`, `disabled_metrics_total`
 * and `hidden_metrics_total`.
 *
 * @module
 */
import { Counter } from "./metric.ts";

/** The Kubernetes minor release this server emulates, for the metric lifecycle. */
export const CURRENT_VERSION = "1.32";

/** A release as major, minor and patch numbers. */
export interface ReleaseVersion {
  major: number;
  minor: number;
  patch: number;
}

/** Parses `1.29`, `1.29.0` or `v1.29.3`; undefined if malformed. */
export function parseMinorVersion(text: string): ReleaseVersion | undefined {
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?$/.exec(text.trim());
  return m ? { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3] ?? 0) } : undefined;
}

/** The metric flags, as parsed. */
export interface MetricsFlags {
  /** `--show-hidden-metrics-for-version`: empty or the previous minor release. */
  showHiddenMetricsForVersion?: string;
  /** `--disabled-metrics`: fully qualified names of metrics never to expose. */
  disabledMetrics?: readonly string[];
}

/** Options of {@link MetricsLifecycle}. */
export interface MetricsLifecycleOptions extends MetricsFlags {
  /** `<major>.<minor>` of this release; default {@link CURRENT_VERSION}. */
  currentVersion?: string;
  /** Called with each lifecycle warning (deprecated metric registered, hidden metric shown). */
  onWarning?: (message: string) => void;
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

/**
 * Checks the metric flags as Kubernetes' metrics options do; one message per problem.
 * `--show-hidden-metrics-for-version` must be empty or exactly the previous minor
 * (`1.31` for 1.32); `--disabled-metrics` names must be metric names.
 */
export function validateMetricsFlags(
  flags: MetricsFlags,
  currentVersion: string = CURRENT_VERSION,
): string[] {
  const errors: string[] = [];
  const current = parseMinorVersion(currentVersion)!;
  const shown = flags.showHiddenMetricsForVersion ?? "";
  const valid = `${current.major}.${current.minor - 1}`;
  if (shown !== "" && shown !== valid) {
    errors.push(
      `--show-hidden-metrics-for-version must be omitted or have the value '${valid}'. Only the previous minor version is allowed`,
    );
  }
  for (const name of flags.disabledMetrics ?? []) {
    if (!METRIC_NAME.test(name)) {
      errors.push(
        `--disabled-metrics must be fully qualified metric names matching "^${
          METRIC_NAME.source.slice(1, -1)
        }$", got "${name}"`,
      );
    }
  }
  return errors;
}

/** Where a metric stands at this release. */
export type MetricState = "shown" | "deprecated" | "hidden" | "disabled";

/** What the lifecycle needs to know of a metric. */
export interface LifecycleMetric {
  readonly name: string;
  readonly stabilityLevel: string;
  readonly deprecatedVersion: string | undefined;
}

/**
 * The metric lifecycle of one process (spec "Metric lifecycle"): a metric whose deprecated
 * version is at or before the current release is deprecated (its description gets
 * `(Deprecated since X)`, a warning is logged once when it is registered); it is hidden once
 * the deprecated version is the current minor minus 3 or older. `--show-hidden-metrics-for-version`
 * set to the previous minor shows again the metrics that release still exposed (deprecated
 * exactly at current minus 3); older ones stay hidden (deleted one release later).
 * `--disabled-metrics` hides the named metrics whatever their state, before showing hidden ones.
 */
export class MetricsLifecycle {
  /** `registered_metrics_total{stability_level,deprecated_version}` (BETA). */
  readonly registeredTotal: Counter;
  /** `disabled_metrics_total` (BETA). */
  readonly disabledTotal: Counter;
  /** `hidden_metrics_total` (BETA). */
  readonly hiddenTotal: Counter;
  readonly #current: ReleaseVersion;
  #showHiddenFor: ReleaseVersion | undefined;
  readonly #disabled: ReadonlySet<string>;
  readonly #onWarning: (message: string) => void;
  readonly #warned = new Set<string>();

  /**
   * Creates the lifecycle of a process.
   *
   * @throws {TypeError} when the options do not pass {@link validateMetricsFlags} or the
   * current version is malformed.
   */
  constructor(options: MetricsLifecycleOptions = {}) {
    const version = options.currentVersion ?? CURRENT_VERSION;
    const current = parseMinorVersion(version);
    if (!current) throw new TypeError(`invalid current version "${version}"`);
    const errors = validateMetricsFlags(options, version);
    if (errors.length) throw new TypeError(errors.join("; "));
    this.#current = current;
    const shown = options.showHiddenMetricsForVersion;
    this.#showHiddenFor = shown ? parseMinorVersion(shown) : undefined;
    this.#disabled = new Set((options.disabledMetrics ?? []).filter((n) => n !== ""));
    this.#onWarning = options.onWarning ?? (() => {});
    this.registeredTotal = new Counter({
      name: "registered_metrics_total",
      help: "The count of registered metrics broken by stability level and deprecation version.",
      labels: ["stability_level", "deprecated_version"],
      stabilityLevel: "BETA",
    });
    this.disabledTotal = new Counter({
      name: "disabled_metrics_total",
      help: "The count of disabled metrics.",
      stabilityLevel: "BETA",
    });
    this.hiddenTotal = new Counter({
      name: "hidden_metrics_total",
      help: "The count of hidden metrics.",
      stabilityLevel: "BETA",
    });
    this.disabledTotal.inc(undefined, this.#disabled.size);
  }

  /** The `<major>.<minor>` this process emulates. */
  get currentVersion(): string {
    return `${this.#current.major}.${this.#current.minor}`;
  }

  /**
   * Applies `--show-hidden-metrics-for-version` after start; returns the error message for a
   * value other than empty or the previous minor.
   */
  setShowHiddenMetricsForVersion(value: string): string | undefined {
    const [error] = validateMetricsFlags(
      { showHiddenMetricsForVersion: value },
      this.currentVersion,
    );
    if (error) return error;
    this.#showHiddenFor = value === "" ? undefined : parseMinorVersion(value);
    return undefined;
  }

  /** The state of a metric at this release, with the flags applied. */
  state(metric: LifecycleMetric): MetricState {
    if (this.#disabled.has(metric.name)) return "disabled";
    const v = metric.deprecatedVersion ? parseMinorVersion(metric.deprecatedVersion) : undefined;
    if (!v || compare(v, this.#current) > 0) return "shown";
    if (!hiddenAt(v, this.#current)) return "deprecated";
    if (this.#showHiddenFor && !hiddenAt(v, this.#showHiddenFor)) return "deprecated";
    return "hidden";
  }

  /** Whether its deprecation hides the metric at this release (before the flag shows it again). */
  hiddenByDeprecation(metric: LifecycleMetric): boolean {
    const v = metric.deprecatedVersion ? parseMinorVersion(metric.deprecatedVersion) : undefined;
    return v !== undefined && hiddenAt(v, this.#current);
  }

  /**
   * Records a registration: the meta metrics, and the warning logged once per metric name for
   * a deprecated metric (or a hidden one shown by the flag). Returns the metric's state.
   */
  registered(metric: LifecycleMetric): MetricState {
    const state = this.state(metric);
    if (state === "hidden" || state === "disabled") {
      this.hiddenTotal.inc();
      this.#warnOnce(metric, state);
      return state;
    }
    const v = metric.deprecatedVersion ? parseMinorVersion(metric.deprecatedVersion) : undefined;
    this.registeredTotal.inc({
      stability_level: metric.stabilityLevel,
      deprecated_version: v ? `${v.major}.${v.minor}.${v.patch}` : "",
    });
    this.#warnOnce(metric, state);
    return state;
  }

  #warnOnce(metric: LifecycleMetric, state: MetricState): void {
    if (state === "shown" || state === "disabled") return;
    const message = state === "deprecated" && this.hiddenByDeprecation(metric)
      ? `Hidden metrics (${metric.name}) have been manually overridden, showing this very deprecated metric.`
      : `This metric (${metric.name}) has been deprecated since ${metric.deprecatedVersion}${
        state === "hidden" ? " and is hidden" : ""
      }.`;
    if (this.#warned.has(message)) return;
    this.#warned.add(message);
    this.#onWarning(message);
  }
}

function compare(a: ReleaseVersion, b: ReleaseVersion): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch;
}

/** Hidden at `release`: deprecated at its minor minus 3 or earlier. */
function hiddenAt(v: ReleaseVersion, release: ReleaseVersion): boolean {
  return v.major < release.major || (v.major === release.major && v.minor <= release.minor - 3);
}
