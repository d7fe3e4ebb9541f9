/**
 * FeatureGates: the effective on/off state of every known gate, with the validation the feature
 * gate lifecycle asks for.
 *
 * @module
 */
import type { FeatureName, FeatureSpec } from "./known_features.ts";

/** What a `parse` or `set` call found: every problem at once, and warnings to log. */
export interface FeatureGateProblems {
  /** One message per rejected entry; when non-empty nothing was applied. */
  errors: string[];
  /** One message per accepted entry that deserves a warning (deprecated or GA gates). */
  warnings: string[];
}

const SPECIAL_GATES: Readonly<Record<string, "Alpha" | "Beta">> = {
  AllAlpha: "Alpha",
  AllBeta: "Beta",
};

/**
 * Parses a boolean the way Go's `strconv.ParseBool` does (the flag parser Kubernetes uses):
 * `1 t T TRUE true True` and `0 f F FALSE false False`.
 */
export function parseGoBool(text: string): boolean | undefined {
  switch (text) {
    case "1":
    case "t":
    case "T":
    case "TRUE":
    case "true":
    case "True":
      return true;
    case "0":
    case "f":
    case "F":
    case "FALSE":
    case "false":
    case "False":
      return false;
    default:
      return undefined;
  }
}

/**
 * The effective state of a set of feature gates.
 *
 * @example
 * ```ts
 * const gates = new FeatureGates(KNOWN_FEATURES);
 * const { errors, warnings } = gates.parse("WatchList=true,APIResponseCompression=false");
 * if (errors.length) throw new Error(errors.join("; "));
 * gates.enabled("WatchList"); // true
 * ```
 */
export class FeatureGates<N extends string = FeatureName> {
  #known: ReadonlyMap<string, FeatureSpec>;
  #explicit = new Map<string, boolean>();

  /**
   * Creates gates at their defaults. `known` is the gate list of the executable (its
   * composition passes the project's `KNOWN_FEATURES`; tests pass their own).
   */
  constructor(known: Readonly<Record<N, FeatureSpec>>) {
    this.#known = new Map(Object.entries(known) as [string, FeatureSpec][]);
  }

  /**
   * Applies a `--feature-gates` value such as `A=true,B=false`. Entries are trimmed, empty
   * entries skipped, values parsed like Go's `strconv.ParseBool`. All problems are reported at
   * once; if there is any, no entry is applied.
   */
  parse(value: string): FeatureGateProblems {
    const errors: string[] = [];
    const entries: [string, unknown][] = [];
    for (const part of value.split(",")) {
      if (part.trim() === "") continue;
      const eq = part.indexOf("=");
      const name = (eq < 0 ? part : part.slice(0, eq)).trim();
      if (eq < 0) {
        errors.push(`missing bool value for ${name}`);
        continue;
      }
      const raw = part.slice(eq + 1).trim();
      const parsed = parseGoBool(raw);
      if (parsed === undefined) {
        errors.push(
          `invalid value of ${name}=${raw}, err: strconv.ParseBool: parsing ${
            JSON.stringify(raw)
          }: invalid syntax`,
        );
        continue;
      }
      entries.push([name, parsed]);
    }
    const result = this.#validate(entries);
    result.errors.unshift(...errors);
    if (result.errors.length === 0) this.#apply(entries as [string, boolean][]);
    return result;
  }

  /**
   * Applies a map of gate name to boolean (for example `featureGates` from a configuration
   * file). Values that are not booleans are reported, as are unknown gates and attempts to move
   * a locked gate off its default. If there is any error, nothing is applied.
   */
  set(
    values: Readonly<Record<string, unknown>> | ReadonlyMap<string, unknown>,
  ): FeatureGateProblems {
    const entries = values instanceof Map
      ? [...values.entries()]
      : Object.entries(values as Record<string, unknown>);
    const result = this.#validate(entries);
    if (result.errors.length === 0) this.#apply(entries as [string, boolean][]);
    return result;
  }

  /**
   * Whether the named gate is on.
   *
   * @throws {RangeError} if the gate is not known (a programming error, as in Kubernetes).
   */
  enabled(name: N): boolean {
    const spec = this.#known.get(name);
    if (!spec) throw new RangeError(`feature "${name}" is not registered in FeatureGate`);
    const explicit = this.#explicit.get(name);
    if (explicit !== undefined) return explicit;
    if (!spec.locked && !(name in SPECIAL_GATES)) {
      for (const [special, stage] of Object.entries(SPECIAL_GATES)) {
        const v = this.#explicit.get(special);
        if (v !== undefined && spec.stage === stage) return v;
      }
    }
    return spec.default;
  }

  /** The specification of a known gate, or undefined. */
  spec(name: string): FeatureSpec | undefined {
    return this.#known.get(name);
  }

  /**
   * Help lines for the flag, one per settable gate, sorted, as Kubernetes prints them:
   * `Name=true|false (ALPHA - default=false)`. GA and deprecated gates are left out.
   */
  knownFeatures(): string[] {
    const out: string[] = [];
    for (const [name, spec] of this.#known) {
      if (spec.stage === "GA" || spec.stage === "Deprecated") continue;
      out.push(`${name}=true|false (${spec.stage.toUpperCase()} - default=${spec.default})`);
    }
    return out.sort();
  }

  /**
   * Every known gate (the `AllAlpha`/`AllBeta` pseudo-gates included) with its spec and
   * effective state, sorted by name; for the `kubernetes_feature_enabled` metric.
   */
  all(): { name: N; spec: FeatureSpec; enabled: boolean }[] {
    return [...this.#known.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, spec]) => ({ name: name as N, spec, enabled: this.enabled(name as N) }));
  }

  /** The explicitly set gates as a flag value, `A=true,B=false`, sorted by name. */
  toString(): string {
    return [...this.#explicit.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${k}=${v}`)
      .join(",");
  }

  #validate(entries: [string, unknown][]): FeatureGateProblems {
    const errors: string[] = [];
    const warnings: string[] = [];
    for (const [name, value] of entries) {
      const spec = this.#known.get(name);
      if (!spec) {
        errors.push(`unrecognized feature gate: ${name}`);
        continue;
      }
      if (typeof value !== "boolean") {
        errors.push(
          `invalid value of ${name}=${
            describe(value)
          }, err: feature gate values must be true or false`,
        );
        continue;
      }
      if (spec.locked && value !== spec.default) {
        errors.push(
          `cannot set feature gate ${name} to ${value}, feature is locked to ${spec.default}`,
        );
        continue;
      }
      if (spec.stage === "Deprecated") {
        warnings.push(
          `Setting deprecated feature gate ${name}=${value}. It will be removed in a future release.`,
        );
      } else if (spec.stage === "GA") {
        warnings.push(
          `Setting GA feature gate ${name}=${value}. It will be removed in a future release.`,
        );
      }
    }
    return { errors, warnings };
  }

  #apply(entries: [string, boolean][]): void {
    for (const [name, value] of entries) this.#explicit.set(name, value);
  }
}

/**
 * The help of a `--feature-gates` flag as Kubernetes writes it: one sentence, then one
 * {@link FeatureGates.knownFeatures} line per settable gate.
 */
export function featureGatesFlagHelp(gates: FeatureGates<string>): string {
  return "A set of key=value pairs that describe feature gates for alpha/experimental " +
    "features. Options are:\n" + gates.knownFeatures().join("\n");
}

function describe(value: unknown): string {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
