/**
 * Loads the node agent's configuration: defaults, then `--config`, then every `*.conf` file of
 * `--config-dir` in lexical order, merged with the four rules of {@link mergeConfig}; then
 * validates the result. All problems are collected and thrown together in a {@link ConfigError}.
 *
 * @module
 */
import { parse as parseYaml } from "yaml";
import { checkFieldTypes, CONFIG_SCHEMA, type ConfigProblem } from "./config_schema.ts";
import { type Doc, mergeConfig, setFieldPaths } from "./merge_config.ts";
import {
  CONFIG_API_VERSION,
  CONFIG_KIND,
  defaultConfiguration,
  type NodeAgentConfiguration,
} from "./node_agent_configuration.ts";
import { validateConfig } from "./validate_config.ts";

/** Thrown when the configuration is invalid; carries every problem found. */
export class ConfigError extends Error {
  /** Each problem with its file and field. */
  readonly problems: ConfigProblem[];

  /** Builds the error; the message lists every problem, one per line. */
  constructor(problems: ConfigProblem[]) {
    super(
      `Invalid node agent configuration:\n${
        problems.map((p) => `  ${p.file}: ${p.field}: ${p.message}`).join("\n")
      }`,
    );
    this.name = "ConfigError";
    this.problems = problems;
  }
}

/** Where the configuration comes from. */
export interface LoadConfigOptions {
  /** The `--config` file. */
  configFile?: string;
  /** The `--config-dir` directory of drop-ins. */
  configDir?: string;
  /**
   * Documents applied last (for example from command-line flags), each with the name that
   * problems should report as their file (e.g. `--root-dir`).
   */
  overrides?: { source: string; doc: Doc }[];
}

/** The loaded configuration and the file that last set each field. */
export interface LoadedConfig {
  /** The merged, defaulted, validated configuration. */
  config: NodeAgentConfiguration;
  /** Field path to the file (or flag) that last set it. */
  origins: Map<string, string>;
  /** The files read, in merge order. */
  files: string[];
}

async function readDoc(file: string, problems: ConfigProblem[]): Promise<Doc | undefined> {
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (e) {
    problems.push({ file, field: "<file>", message: `cannot read: ${(e as Error).message}` });
    return undefined;
  }
  let doc: unknown;
  try {
    doc = parseYaml(text, { uniqueKeys: true });
  } catch (e) {
    problems.push({ file, field: "<file>", message: `invalid YAML: ${(e as Error).message}` });
    return undefined;
  }
  if (doc === null || doc === undefined) doc = {};
  if (typeof doc !== "object" || Array.isArray(doc)) {
    problems.push({ file, field: "<root>", message: "expected a map of configuration fields" });
    return undefined;
  }
  const d = doc as Doc;
  const { problems: typeProblems, clean } = checkFieldTypes(d, CONFIG_SCHEMA, file);
  problems.push(...typeProblems);
  if (d.apiVersion === undefined) {
    problems.push({ file, field: "apiVersion", message: "Required value" });
  } else if (d.apiVersion !== CONFIG_API_VERSION) {
    problems.push({
      file,
      field: "apiVersion",
      message: `must be ${CONFIG_API_VERSION}, got ${JSON.stringify(d.apiVersion)}`,
    });
  }
  if (d.kind === undefined) problems.push({ file, field: "kind", message: "Required value" });
  else if (d.kind !== CONFIG_KIND) {
    problems.push({
      file,
      field: "kind",
      message: `must be ${CONFIG_KIND}, got ${JSON.stringify(d.kind)}`,
    });
  }
  return (clean ?? {}) as Doc;
}

/** Lists the drop-in files of a directory: regular `*.conf` files in lexical (byte) order. */
export async function dropInFiles(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    if (e.isFile && e.name.endsWith(".conf")) names.push(e.name);
  }
  names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return names.map((n) => `${dir.replace(/\/+$/, "")}/${n}`);
}

/**
 * Loads, merges and validates the configuration.
 *
 * @throws {ConfigError} listing every problem with its file and field.
 */
export async function loadConfig(opts: LoadConfigOptions): Promise<LoadedConfig> {
  const problems: ConfigProblem[] = [];
  const files: string[] = [];
  if (opts.configFile) files.push(opts.configFile);
  if (opts.configDir) {
    try {
      files.push(...await dropInFiles(opts.configDir));
    } catch (e) {
      problems.push({
        file: opts.configDir,
        field: "<dir>",
        message: `cannot read: ${(e as Error).message}`,
      });
    }
  }
  let merged: Doc = defaultConfiguration() as unknown as Doc;
  const origins = new Map<string, string>();
  const apply = (source: string, doc: Doc) => {
    merged = mergeConfig(merged, doc, CONFIG_SCHEMA);
    for (const path of setFieldPaths(doc, CONFIG_SCHEMA)) origins.set(path, source);
  };
  for (const file of files) {
    const doc = await readDoc(file, problems);
    if (doc) apply(file, doc);
  }
  for (const o of opts.overrides ?? []) {
    const { problems: typeProblems, clean } = checkFieldTypes(o.doc, CONFIG_SCHEMA, o.source);
    problems.push(...typeProblems);
    apply(o.source, (clean ?? {}) as Doc);
  }
  const config = merged as unknown as NodeAgentConfiguration;
  for (const p of validateConfig(config)) {
    problems.push({ file: originOf(origins, p.field), field: p.field, message: p.message });
  }
  if (problems.length) throw new ConfigError(problems);
  return { config, origins, files };
}

function originOf(origins: Map<string, string>, field: string): string {
  let path = field;
  for (;;) {
    const o = origins.get(path);
    if (o) return o;
    const cut = Math.max(path.lastIndexOf("."), path.lastIndexOf("["));
    if (cut <= 0) return "<defaults>";
    path = path.slice(0, cut);
  }
}
