/**
 * The node agent's command line: flags, then the configuration files they name, merged and
 * validated; every problem (flags, files, fields, feature gates) is reported at once.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { FeatureGates, featureGatesFlagHelp, KNOWN_FEATURES } from "../shared/feature_gates.ts";
import { parseVerbosity } from "../shared/log/mod.ts";
import { ConfigError, loadConfig } from "./config/load_config.ts";
import type { Doc } from "./config/merge_config.ts";
import type { NodeAgentConfiguration } from "./config/node_agent_configuration.ts";
import {
  type BootstrapOptions,
  JOIN_FLAG_HELP,
  joinOptionsFromFlags,
  normalizeJoinFlags,
} from "./bootstrap/join_options.ts";
import {
  PROXY_FLAG_HELP,
  type ProxyOptions,
  proxyOptionsFromFlags,
} from "./proxy/proxy_options.ts";

/** Everything the agent needs to start. */
export interface AgentOptions {
  /** The kubeconfig used to reach the API server. */
  kubeconfig: string;
  /** The node's name (`--hostname-override`, else the host name, lowercased). */
  nodeName: string;
  /** The merged, validated configuration (flags applied). */
  config: NodeAgentConfiguration;
  /** Effective feature gates. */
  gates: FeatureGates;
  /** Log verbosity. */
  verbosity: number;
  /** Warnings to log at start. */
  warnings: string[];
  /** TLS bootstrap and join (absent: the kubeconfig is used as it is). */
  bootstrap?: BootstrapOptions;
  /** The built-in service proxy (absent: off). */
  proxy?: ProxyOptions;
}

/** The flags, with their help text. */
export const AGENT_FLAG_HELP: Record<string, string> = {
  kubeconfig:
    "kubeconfig with the API server, its CA and the agent's credential (required; with --token default <root-dir>/nodeagent.kubeconfig)",
  config: "configuration file (KubeletConfiguration YAML)",
  "config-dir": "directory of *.conf drop-in files merged over --config in lexical order",
  "hostname-override": "the node's name instead of the host name",
  "root-dir": "directory for pods, checkpoints and certificates (default /var/lib/nodeagent)",
  "feature-gates": featureGatesFlagHelp(new FeatureGates(KNOWN_FEATURES)),
  "node-labels": "labels to add when registering the node, key=value,...",
  port: "HTTPS port of the agent (default 10250; 0 picks a free port)",
  v: "log verbosity",
  ...JOIN_FLAG_HELP,
  ...PROXY_FLAG_HELP,
};

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Parses `key=value,key2=value2`; returns the map and the malformed entries. */
export function parseNodeLabels(text: string): { labels: Record<string, string>; bad: string[] } {
  const labels: Record<string, string> = {};
  const bad: string[] = [];
  for (const part of text.split(",")) {
    if (!part.trim()) continue;
    const eq = part.indexOf("=");
    if (eq <= 0) bad.push(part.trim());
    else labels[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  return { labels, bad };
}

/** Flags that may be given more than once (`--feature-gates` values accumulate, as kubelet's). */
const MULTIPLE_FLAGS = ["discovery-token-ca-cert-hash", "feature-gates"];

/** Parses flags and loads the configuration; never throws. */
export async function parseAgentOptions(
  args: string[],
): Promise<{ ok: true; options: AgentOptions } | { ok: false; errors: string[] }> {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args: normalizeJoinFlags(args),
      strict: true,
      allowPositionals: false,
      options: Object.fromEntries(
        Object.keys(AGENT_FLAG_HELP).map((k) => [
          k,
          { type: "string", multiple: MULTIPLE_FLAGS.includes(k) },
        ]),
      ) as Record<string, { type: "string" }>,
    }).values;
  } catch (err) {
    return { ok: false, errors: [(err as Error).message] };
  }
  const str = (k: string) => values[k] as string | undefined;
  const errors: string[] = [];
  const hashes = (values["discovery-token-ca-cert-hash"] ?? []) as unknown as string[];
  const bootstrap = joinOptionsFromFlags(str, hashes, errors);
  if (!str("kubeconfig") && !bootstrap.join) errors.push("--kubeconfig: required");
  const overrides = flagOverrides(str, errors);
  const proxy = proxyOptionsFromFlags(str, errors);
  const nodeName = (str("hostname-override") ?? Deno.hostname()).trim().toLowerCase();
  if (!DNS_SUBDOMAIN.test(nodeName) || nodeName.length > 253) {
    errors.push(
      `--hostname-override: ${
        JSON.stringify(nodeName)
      } is not a valid node name (a lowercase RFC 1123 subdomain)`,
    );
  }
  let verbosity = 0;
  try {
    verbosity = parseVerbosity(str("v") ?? "0");
  } catch (err) {
    errors.push(`-v: ${(err as Error).message}`);
  }
  const config = await loadAgentConfig(str, overrides, errors);
  // Port 0 (a free port) is allowed on the command line for tests.
  if (config && str("port") === "0") config.port = 0;
  const { gates, warnings } = effectiveGates(str, config, errors);
  if (errors.length || !config) return { ok: false, errors };
  return {
    ok: true,
    options: {
      kubeconfig: str("kubeconfig") ?? `${config.rootDir}/nodeagent.kubeconfig`,
      nodeName,
      config,
      gates,
      verbosity,
      warnings,
      bootstrap,
      proxy,
    },
  };
}

/** A flag's value by name (undefined when not given). */
type Flag = (name: string) => string | undefined;

/** The configuration overrides of `--root-dir`, `--port` and `--node-labels`; problems to `errors`. */
function flagOverrides(str: Flag, errors: string[]): { source: string; doc: Doc }[] {
  const overrides: { source: string; doc: Doc }[] = [];
  if (str("root-dir") !== undefined) {
    overrides.push({ source: "--root-dir", doc: { rootDir: str("root-dir") } });
  }
  if (str("port") !== undefined) {
    const port = Number(str("port"));
    if (!/^\d+$/.test(str("port")!) || port > 65535) {
      errors.push(`--port: must be an integer from 0 to 65535, got ${JSON.stringify(str("port"))}`);
    } else if (port !== 0) overrides.push({ source: "--port", doc: { port } });
  }
  if (str("node-labels") !== undefined) {
    const { labels, bad } = parseNodeLabels(str("node-labels")!);
    for (const b of bad) {
      errors.push(`--node-labels: invalid entry ${JSON.stringify(b)}: want key=value`);
    }
    overrides.push({ source: "--node-labels", doc: { nodeLabels: labels } });
  }
  return overrides;
}

/** The configuration of `--config` and `--config-dir` with the overrides; problems to `errors`. */
async function loadAgentConfig(
  str: Flag,
  overrides: { source: string; doc: Doc }[],
  errors: string[],
): Promise<NodeAgentConfiguration | undefined> {
  let config: NodeAgentConfiguration | undefined;
  try {
    const loaded = await loadConfig({
      configFile: str("config"),
      configDir: str("config-dir"),
      overrides,
    });
    config = loaded.config;
  } catch (err) {
    if (err instanceof ConfigError) {
      errors.push(...err.problems.map((p) => `${p.file}: ${p.field}: ${p.message}`));
    } else errors.push(`configuration: ${(err as Error).message}`);
  }
  return config;
}

/** The feature gates of the configuration, then `--feature-gates`; problems to `errors`. */
function effectiveGates(
  str: Flag,
  config: NodeAgentConfiguration | undefined,
  errors: string[],
): { gates: FeatureGates; warnings: string[] } {
  const gates = new FeatureGates(KNOWN_FEATURES);
  const warnings: string[] = [];
  if (config) {
    const r = gates.set(config.featureGates);
    warnings.push(...r.warnings);
  }
  const flag = str("feature-gates") as unknown as string[] | undefined;
  if (flag !== undefined) {
    const r = gates.parse(flag.join(","));
    errors.push(...r.errors.map((e) => `--feature-gates: ${e}`));
    warnings.push(...r.warnings);
  }
  return { gates, warnings };
}
