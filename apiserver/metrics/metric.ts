/**
 * The metric types: Counter, Gauge and Histogram, each a vector over a fixed set of label names.
 *
 * @module
 */
import { escapeHelp, formatFloat, formatLabelPairs, withLabels } from "./exposition_format.ts";

/** Stability level of a metric, written as a prefix of its description. */
export type StabilityLevel = "INTERNAL" | "ALPHA" | "BETA" | "STABLE";

/** Options common to every metric. */
export interface MetricOptions {
  /** Full metric name, `[a-zA-Z_:][a-zA-Z0-9_:]*`. */
  name: string;
  /** Description. */
  help: string;
  /** Label names, in the order label values are declared. */
  labels?: readonly string[];
  /** Default `ALPHA`. */
  stabilityLevel?: StabilityLevel;
  /** Release in which the metric was deprecated, such as `1.29.0`. */
  deprecatedVersion?: string;
}

/** Label values by label name; labels not given are the empty string. */
export type Labels = Readonly<Record<string, string | number | boolean>>;

/** A sample source called at exposition time, e.g. a database size probe. */
export type Collector = () =>
  | Iterable<readonly [Labels, number]>
  | Promise<Iterable<readonly [Labels, number]>>;

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** The parts every metric type shares: name, help, label handling, children. */
export abstract class Metric<Child> {
  /** Full metric name. */
  readonly name: string;
  /** Description as given (without stability or deprecation prefixes). */
  readonly help: string;
  /** Label names in declaration order. */
  readonly labelNames: readonly string[];
  /** Stability level. */
  readonly stabilityLevel: StabilityLevel;
  /** Deprecation release, if any. */
  readonly deprecatedVersion: string | undefined;
  /** The exposition `# TYPE`. */
  abstract readonly type: "counter" | "gauge" | "histogram";
  #children = new Map<string, Entry<Child>>();
  /** The same entries looked up label value by label value (no key string per call). */
  #index = new Map<string, unknown>();
  #labelSet: Set<string>;
  /** Declaration index of each label name in output (sorted) order. */
  #outputOrder: number[];

  /**
   * Validates names.
   *
   * @throws {TypeError} on an invalid metric or label name, or a duplicate label.
   */
  constructor(options: MetricOptions, reserved: readonly string[] = []) {
    if (!METRIC_NAME.test(options.name)) {
      throw new TypeError(`invalid metric name "${options.name}"`);
    }
    const labels = options.labels ?? [];
    for (const l of labels) {
      if (!LABEL_NAME.test(l) || l.startsWith("__") || reserved.includes(l)) {
        throw new TypeError(`invalid label name "${l}" for metric "${options.name}"`);
      }
    }
    if (new Set(labels).size !== labels.length) {
      throw new TypeError(`duplicate label names for metric "${options.name}"`);
    }
    this.name = options.name;
    this.help = options.help;
    this.labelNames = [...labels];
    this.stabilityLevel = options.stabilityLevel ?? "ALPHA";
    this.deprecatedVersion = options.deprecatedVersion;
    this.#outputOrder = [...labels].sort().map((n) => labels.indexOf(n));
    this.#labelSet = new Set(labels);
  }

  /** A metric without labels has its one sample from the start, as in client_golang. */
  protected initUnlabelled(): void {
    if (this.labelNames.length === 0) this.child();
  }

  /** Creates the state of one label combination. */
  protected abstract newChild(): Child;

  /**
   * Writes the sample lines of one child; `labels` is the inside of its label set
   * (`a="1",b="2"`, see `formatLabelPairs`).
   */
  protected abstract render(labels: string, child: Child, out: string[]): void;

  /**
   * The child for a label combination, created on first use.
   *
   * @throws {TypeError} on a label name the metric does not declare.
   */
  protected child(labels: Labels = {}): Child {
    for (const k of Object.keys(labels)) {
      if (!this.#labelSet.has(k)) {
        throw new TypeError(`metric "${this.name}" has no label "${k}"`);
      }
    }
    const names = this.labelNames;
    // Walk the index one label value at a time; the last level holds the entry.
    let level = this.#index;
    let found: unknown = undefined;
    for (let i = 0; i < names.length; i++) {
      const n = names[i];
      const v = n in labels ? String(labels[n]) : "";
      found = level.get(v);
      if (found === undefined) break;
      if (i < names.length - 1) level = found as Map<string, unknown>;
    }
    if (found !== undefined && names.length > 0) {
      return (found as { child: Child }).child;
    }
    const values = names.map((n) => (n in labels ? String(labels[n]) : ""));
    const key = JSON.stringify(values);
    let entry = this.#children.get(key);
    if (!entry) {
      entry = this.#newEntry(values);
      this.#children.set(key, entry);
    }
    level = this.#index;
    for (let i = 0; i < values.length; i++) {
      if (i === values.length - 1) {
        level.set(values[i], entry);
        break;
      }
      let next = level.get(values[i]) as Map<string, unknown> | undefined;
      if (!next) {
        next = new Map();
        level.set(values[i], next);
      }
      level = next;
    }
    return entry.child;
  }

  /** Drops every label combination. */
  reset(): void {
    this.#children.clear();
    this.#index.clear();
  }

  /** Whether any label combination has been recorded. */
  get empty(): boolean {
    return this.#children.size === 0;
  }

  /**
   * The metric family in exposition format (HELP, TYPE, samples sorted by label values), or an
   * empty list when no sample exists. `help` is the description to print.
   */
  expose(help: string): string[] {
    if (this.#children.size === 0) return [];
    const out = [`# HELP ${this.name} ${escapeHelp(help)}`, `# TYPE ${this.name} ${this.type}`];
    const rows = [...this.#children.values()];
    rows.sort((a, b) => compareValues(a.sortKey, b.sortKey));
    for (const row of rows) this.render(row.labels, row.child, out);
    return out;
  }

  /** A new label combination, with its values in output order and its label text. */
  #newEntry(values: string[]): Entry<Child> {
    const order = this.#outputOrder;
    return {
      values,
      child: this.newChild(),
      sortKey: order.map((i) => values[i]),
      labels: formatLabelPairs(order.map((i) => [this.labelNames[i], values[i]])),
    };
  }
}

/** One label combination: its values (declaration order), state and rendered labels. */
interface Entry<Child> {
  values: string[];
  child: Child;
  /** Values in output (label name) order, for sorting. */
  sortKey: string[];
  /** The inside of the rendered label set. */
  labels: string;
}

function compareValues(a: string[], b: string[]): number {
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return 0;
}

/** A monotonically increasing count. */
export class Counter extends Metric<{ value: number }> {
  /** Exposition type. */
  readonly type = "counter";

  /** Creates the metric; one without labels starts at 0. */
  constructor(options: MetricOptions) {
    super(options);
    this.initUnlabelled();
  }

  /**
   * Adds `by` (default 1).
   *
   * @throws {RangeError} when `by` is negative or not finite.
   */
  inc(labels?: Labels, by = 1): void {
    if (!(by >= 0) || !Number.isFinite(by)) {
      throw new RangeError(`counter "${this.name}" cannot increase by ${by}`);
    }
    this.child(labels).value += by;
  }

  /** The current value for a label combination (0 if never touched). */
  get(labels?: Labels): number {
    return this.child(labels).value;
  }

  /** Creates a zero child. */
  protected newChild(): { value: number } {
    return { value: 0 };
  }

  /** Writes one sample. */
  protected render(labels: string, child: { value: number }, out: string[]): void {
    out.push(`${this.name}${withLabels(labels)} ${formatFloat(child.value)}`);
  }
}

/** A value that goes up and down, optionally filled by a collector at exposition time. */
export class Gauge extends Metric<{ value: number }> {
  /** Exposition type. */
  readonly type = "gauge";

  /** Creates the metric; one without labels starts at 0. */
  constructor(options: MetricOptions) {
    super(options);
    this.initUnlabelled();
  }
  #collector: Collector | undefined;

  /** Sets the value. */
  set(labels: Labels | undefined, value: number): void {
    this.child(labels).value = value;
  }

  /** Adds `by` (default 1). */
  inc(labels?: Labels, by = 1): void {
    this.child(labels).value += by;
  }

  /** Subtracts `by` (default 1). */
  dec(labels?: Labels, by = 1): void {
    this.child(labels).value -= by;
  }

  /** The current value for a label combination (0 if never touched). */
  get(labels?: Labels): number {
    return this.child(labels).value;
  }

  /**
   * Installs (or with undefined removes) a collector: at each exposition its samples replace
   * the gauge's values. A collector that throws leaves the gauge empty for that scrape.
   */
  setCollector(collector: Collector | undefined): void {
    this.#collector = collector;
    if (!collector) this.reset();
  }

  /** Runs the collector, if any, replacing the current values. */
  async collect(): Promise<void> {
    const collector = this.#collector;
    if (!collector) return;
    this.reset();
    for (const [labels, value] of await collector()) this.set(labels, value);
  }

  /** Creates a zero child. */
  protected newChild(): { value: number } {
    return { value: 0 };
  }

  /** Writes one sample. */
  protected render(labels: string, child: { value: number }, out: string[]): void {
    out.push(`${this.name}${withLabels(labels)} ${formatFloat(child.value)}`);
  }
}

/** Options of a histogram. */
export interface HistogramOptions extends MetricOptions {
  /** Upper bounds, strictly increasing; `+Inf` is implied. Default Prometheus' DefBuckets. */
  buckets?: readonly number[];
}

/** Prometheus' default buckets. */
export const DEFAULT_BUCKETS: readonly number[] = [
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.25,
  0.5,
  1,
  2.5,
  5,
  10,
];

interface HistogramChild {
  counts: number[];
  sum: number;
  count: number;
}

/** A distribution of observations in cumulative buckets. */
export class Histogram extends Metric<HistogramChild> {
  /** Exposition type. */
  readonly type = "histogram";
  /** Upper bounds, without `+Inf`. */
  readonly buckets: readonly number[];
  /** The `le` pair of each bound, then of `+Inf`. */
  readonly #le: readonly string[];

  /**
   * Validates buckets.
   *
   * @throws {TypeError} when buckets are not strictly increasing finite numbers.
   */
  constructor(options: HistogramOptions) {
    super(options, ["le"]);
    const buckets = [...(options.buckets ?? DEFAULT_BUCKETS)];
    if (buckets.length > 0 && buckets[buckets.length - 1] === Infinity) buckets.pop();
    for (let i = 0; i < buckets.length; i++) {
      if (!Number.isFinite(buckets[i]) || (i > 0 && buckets[i] <= buckets[i - 1])) {
        throw new TypeError(`histogram "${options.name}" buckets must be strictly increasing`);
      }
    }
    this.buckets = buckets;
    this.#le = [...buckets.map(formatFloat), "+Inf"].map((b) => `le="${b}"`);
    this.initUnlabelled();
  }

  /** Records one observation (counted in every bucket whose bound is >= the value). */
  observe(labels: Labels | undefined, value: number): void {
    const child = this.child(labels);
    const i = this.buckets.findIndex((b) => value <= b);
    if (i >= 0) child.counts[i]++;
    child.sum += value;
    child.count++;
  }

  /** Count and sum of a label combination. */
  get(labels?: Labels): { count: number; sum: number } {
    const c = this.child(labels);
    return { count: c.count, sum: c.sum };
  }

  /** Creates an empty child. */
  protected newChild(): HistogramChild {
    return { counts: this.buckets.map(() => 0), sum: 0, count: 0 };
  }

  /** Writes `_bucket` lines for every bound and `+Inf`, then `_sum` and `_count`. */
  protected render(labels: string, child: HistogramChild, out: string[]): void {
    const bucket = `${this.name}_bucket`;
    let cumulative = 0;
    for (let i = 0; i < this.buckets.length; i++) {
      cumulative += child.counts[i];
      out.push(`${bucket}${withLabels(labels, this.#le[i])} ${formatFloat(cumulative)}`);
    }
    const inf = withLabels(labels, this.#le[this.buckets.length]);
    out.push(`${bucket}${inf} ${formatFloat(child.count)}`);
    out.push(`${this.name}_sum${withLabels(labels)} ${formatFloat(child.sum)}`);
    out.push(`${this.name}_count${withLabels(labels)} ${formatFloat(child.count)}`);
  }
}

/** `count` buckets starting at `start`, each `factor` times the previous. */
export function exponentialBuckets(start: number, factor: number, count: number): number[] {
  const out: number[] = [];
  for (let i = 0, b = start; i < count; i++, b *= factor) out.push(b);
  return out;
}
