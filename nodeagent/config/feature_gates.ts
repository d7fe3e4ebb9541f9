/**
 * The node agent's feature gates: the known gates with their stage and default, and the
 * effective set after configuration and `--feature-gates` overrides.
 *
 * @module
 */

/** A gate's maturity. */
export type GateStage = "ALPHA" | "BETA" | "GA" | "DEPRECATED";

/** What the agent knows about one gate. */
export interface GateSpec {
  /** Enabled when not overridden. */
  default: boolean;
  /** Maturity. */
  stage: GateStage;
  /** GA and deprecated gates may not be switched away from their default. */
  locked?: boolean;
}

/** Every gate the agent recognises. */
export const KNOWN_FEATURE_GATES: Readonly<Record<string, GateSpec>> = {
  ContainerCheckpoint: { default: true, stage: "BETA" },
  KubeletFineGrainedAuthz: { default: false, stage: "ALPHA" },
  SeccompDefault: { default: true, stage: "GA", locked: true },
};

/** The effective feature gates. */
export interface FeatureGates {
  /** Whether the named gate is on (unknown gates are off). */
  enabled(name: string): boolean;
}

/**
 * Returns one problem message per override that names an unknown gate or tries to change a
 * locked one; an empty list means the overrides are valid.
 */
export function checkFeatureGates(overrides: Record<string, boolean>): Map<string, string> {
  const problems = new Map<string, string>();
  for (const [name, value] of Object.entries(overrides)) {
    const spec = KNOWN_FEATURE_GATES[name];
    if (!spec) problems.set(name, `unrecognized feature gate: ${name}`);
    else if (spec.locked && value !== spec.default) {
      problems.set(
        name,
        `cannot set feature gate ${name} to ${value}, feature is locked to ${spec.default}`,
      );
    }
  }
  return problems;
}

/** Builds the effective gates from overrides (later sources win). */
export function featureGates(...overrides: Record<string, boolean>[]): FeatureGates {
  const merged: Record<string, boolean> = Object.assign({}, ...overrides);
  return {
    enabled(name: string): boolean {
      if (name in merged) return merged[name];
      return KNOWN_FEATURE_GATES[name]?.default ?? false;
    },
  };
}

/**
 * Parses the `--feature-gates` flag value, `A=true,B=false`.
 *
 * @throws {SyntaxError} on a malformed entry.
 */
export function parseFeatureGatesFlag(text: string): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const raw of text.split(",")) {
    const part = raw.trim();
    if (!part) continue;
    const m = /^([A-Za-z0-9]+)=(true|false)$/i.exec(part);
    if (!m) {
      throw new SyntaxError(
        `Cannot parse feature gate ${JSON.stringify(part)}: want Name=true|false`,
      );
    }
    out[m[1]] = m[2].toLowerCase() === "true";
  }
  return out;
}
