/**
 * `--runtime-config`: which built-in group versions and resources requests reach, with
 * kube-apiserver's grammar: comma-separated `<key>[=<value>]` (no value means true) where the
 * key is `api/all`, `api/ga`, `api/beta`, `api/alpha` (every version of that stability),
 * `<group>/<version>`, or `<group>/<version>/<resource>`; `api/v1` and `api/legacy` name the
 * core group. The stability keys apply first (in that order), then versions, then resources.
 * By default GA versions are served and alpha and beta ones are not (kube 1.32 serves no beta
 * version by default). A disabled version keeps its objects: they stay stored and readable
 * through the versions still served, and come back when it is enabled again.
 *
 * @module
 */

/** A parsed `--runtime-config`. */
export interface RuntimeConfig {
  /** Stability keys (`api/all`...) with their values, in the order kube applies them. */
  matchers: [StabilityKey, boolean][];
  /** `<group>/<version>` (core group as "") → enabled. */
  versions: Map<string, boolean>;
  /** `<group>/<version>/<resource>` → enabled. */
  resources: Map<string, boolean>;
}

type StabilityKey = "api/all" | "api/ga" | "api/beta" | "api/alpha";
const STABILITY_KEYS: readonly StabilityKey[] = ["api/all", "api/ga", "api/beta", "api/alpha"];
const MATCHERS: Record<StabilityKey, (version: string) => boolean> = {
  "api/all": () => true,
  "api/ga": (v) => /^v\d+$/.test(v),
  "api/beta": (v) => /^v\d+beta\d+$/.test(v),
  "api/alpha": (v) => /^v\d+alpha\d+$/.test(v),
};

/** An empty configuration: the defaults. */
export const DEFAULT_RUNTIME_CONFIG: RuntimeConfig = {
  matchers: [],
  versions: new Map(),
  resources: new Map(),
};

/** Go's strconv.ParseBool. */
function parseBool(s: string): boolean | undefined {
  if (["1", "t", "T", "TRUE", "true", "True"].includes(s)) return true;
  if (["0", "f", "F", "FALSE", "false", "False"].includes(s)) return false;
  return undefined;
}

/**
 * Parses the flag's values (the flag may repeat), pushing every syntax problem onto `errors`
 * with kube's messages. Whether the group versions exist is checked by
 * {@link checkRuntimeConfig} once the kinds are known.
 */
export function parseRuntimeConfig(values: string[], errors: string[]): RuntimeConfig {
  const pairs = new Map<string, string>();
  for (const item of values.flatMap((v) => v.split(","))) {
    const s = item.trim();
    if (s === "") continue;
    const eq = s.indexOf("=");
    pairs.set(eq < 0 ? s : s.slice(0, eq), eq < 0 ? "" : s.slice(eq + 1));
  }
  const config: RuntimeConfig = { matchers: [], versions: new Map(), resources: new Map() };
  for (const key of STABILITY_KEYS) {
    const value = pairs.get(key);
    if (value === undefined) continue;
    if (value !== "true" && value !== "false") errors.push(`invalid value ${key}=${value}`);
    else config.matchers.push([key, value === "true"]);
  }
  for (const [key, value] of pairs) {
    if ((STABILITY_KEYS as readonly string[]).includes(key)) continue;
    const tokens = key.split("/");
    if (tokens.length < 2 || tokens.length > 3 || tokens.slice(0, 2).some((t) => t === "")) {
      errors.push(`runtime-config invalid key ${key}`);
      continue;
    }
    const enabled = value === "" ? true : parseBool(value);
    if (enabled === undefined) {
      errors.push(
        `invalid value of ${key}: ${value}, err: strconv.ParseBool: parsing ` +
          `${JSON.stringify(value)}: invalid syntax`,
      );
      continue;
    }
    const gv = groupVersionKey(tokens[0], tokens[1]);
    if (tokens.length === 2) {
      config.versions.set(gv, enabled);
    } else if (tokens[2].toLowerCase() !== tokens[2] || tokens[2] === "") {
      errors.push(
        `invalid key ${key}: group/version/resource and resource is always lowercase ` +
          `plural, not ${JSON.stringify(tokens[2])}`,
      );
    } else {
      config.resources.set(`${gv}/${tokens[2]}`, enabled);
    }
  }
  return config;
}

/** `api/v1` and `api/legacy` are the core group's v1; else `<group>/<version>`. */
function groupVersionKey(group: string, version: string): string {
  if (group === "api" && (version === "v1" || version === "legacy")) return "/v1";
  return `${group}/${version}`;
}

/** A kind as the configuration sees it. */
export interface ConfigurableKind {
  group: string;
  version: string;
  plural: string;
}

/**
 * The problems of `config` against the built-in kinds, in kube's words: a group this server
 * does not have, a version of a known group it does not serve (also a version kube no longer
 * serves, such as batch/v1beta1), a resource it does not have, and turning off the core group,
 * which the server runs on.
 */
export function checkRuntimeConfig(
  config: RuntimeConfig,
  kinds: readonly ConfigurableKind[],
): string[] {
  const errors: string[] = [];
  const groups = new Set(kinds.map((k) => k.group));
  const versions = new Set(kinds.map((k) => `${k.group}/${k.version}`));
  const resources = new Set(kinds.map((k) => `${k.group}/${k.version}/${k.plural}`));
  const show = (gv: string) => gv.startsWith("/") ? gv.slice(1) : gv;
  const unknownGroups = new Set<string>();
  const check = (gv: string, gvr?: string) => {
    const group = gv.slice(0, gv.indexOf("/"));
    if (!groups.has(group)) unknownGroups.add(group);
    else if (!versions.has(gv)) {
      errors.push(`group version ${show(gv)} that has not been registered`);
    } else if (gvr && !resources.has(gvr)) {
      errors.push(`resource ${show(gvr)} that has not been registered`);
    }
  };
  for (const gv of config.versions.keys()) check(gv);
  for (const gvr of config.resources.keys()) check(gvr.slice(0, gvr.lastIndexOf("/")), gvr);
  // kube's APIEnablementOptions.Validate: one error naming every group it does not know.
  if (unknownGroups.size > 0) {
    errors.push(`unknown api groups ${[...unknownGroups].sort().join(",")}`);
  }
  const core = kinds.filter((k) => k.group === "" && k.version === "v1");
  if (core.some((k) => !runtimeConfigServes(config, k))) {
    errors.push(
      "the core API (api/v1) and its resources cannot be disabled: the server runs on them",
    );
  }
  return errors;
}

/** Whether `config` serves `kind` (a built-in kind). */
export function runtimeConfigServes(config: RuntimeConfig, kind: ConfigurableKind): boolean {
  const gv = `${kind.group}/${kind.version}`;
  const resource = config.resources.get(`${gv}/${kind.plural}`);
  if (resource !== undefined) return resource;
  const version = config.versions.get(gv);
  if (version !== undefined) return version;
  let served = MATCHERS["api/ga"](kind.version);
  for (const [key, enabled] of config.matchers) {
    if (MATCHERS[key](kind.version)) served = enabled;
  }
  return served;
}

/**
 * The configuration applied to the built-in kinds once they are known: custom resources and
 * other kinds outside the built-in group versions are always served.
 */
export class ServedVersions {
  readonly #config: RuntimeConfig;
  readonly #builtin = new Set<string>();

  constructor(config: RuntimeConfig | undefined) {
    this.#config = config ?? DEFAULT_RUNTIME_CONFIG;
  }

  /**
   * Records the built-in kinds.
   *
   * @throws {Error} listing every problem of the configuration with them.
   */
  setBuiltins(kinds: readonly ConfigurableKind[]): void {
    const errors = checkRuntimeConfig(this.#config, kinds);
    if (errors.length > 0) throw new Error(`--runtime-config: ${errors.join("; ")}`);
    for (const k of kinds) this.#builtin.add(`${k.group}/${k.version}`);
  }

  /** Whether requests reach `kind`. */
  serves(kind: ConfigurableKind): boolean {
    return !this.#builtin.has(`${kind.group}/${kind.version}`) ||
      runtimeConfigServes(this.#config, kind);
  }
}
