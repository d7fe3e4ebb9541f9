/**
 * The API server's options: parsed from flags, validated all at once (every problem is
 * reported together), then handed to the server.
 *
 * @module
 */
import {
  normalizeResourceMetricsFlags,
  RESOURCE_METRICS_FLAG_HELP,
  RESOURCE_METRICS_PARSE_OPTIONS,
  type ResourceMetricsOptions,
  resourceMetricsOptionsFromFlags,
} from "./resourcemetrics/metrics_options.ts";
import {
  KUBELET_FLAG_HELP,
  KUBELET_PARSE_OPTIONS,
  type KubeletClientOptions,
  kubeletClientOptionsFromFlags,
} from "./kubelet/kubelet_client_flags.ts";
import { parseCIDR, parsePortRange } from "./registry/core/services/ip_range.ts";
import { parseArgs } from "node:util";
import {
  componentFeatureGatesFlagHelp,
  componentFeatureGatesFromFlags,
  FeatureGates,
  KNOWN_FEATURES,
} from "../shared/feature_gates.ts";
import { tryParseDurationMs } from "../shared/time/duration.ts";
import { parseVerbosity } from "../shared/log/mod.ts";
import { HTTP2_MAX_STREAMS } from "../shared/http/https_server.ts";
import {
  type AuthorizationOptions,
  authorizationOptionsFromFlags,
  AUTHZ_FLAG_HELP,
  AUTHZ_PARSE_OPTIONS,
} from "./auth/authz/authorization_options.ts";
import {
  type AuthenticationOptions,
  authenticationOptionsFromFlags,
  AUTHN_FLAG_HELP,
  AUTHN_PARSE_OPTIONS,
  normalizeBoolFlags,
} from "./auth/authn/authentication_options.ts";
import type { WatchTuning } from "./watch/change_feed.ts";
import {
  DELEGATION_FLAG_HELP,
  DELEGATION_PARSE_OPTIONS,
  type DelegationOptions,
  delegationOptionsFromFlags,
  normalizeDelegationBoolFlags,
} from "./auth/delegation_options.ts";
import { parseRuntimeConfig, type RuntimeConfig } from "./registry/runtime_config.ts";
import {
  CONTROLLER_FLAG_HELP,
  CONTROLLER_PARSE_OPTIONS,
  type ControllerOptions,
  controllerOptionsFromFlags,
  normalizeControllerBoolFlags,
} from "./controllers/controller_options.ts";
import {
  ADMISSION_FLAG_HELP,
  ADMISSION_PARSE_OPTIONS,
  type AdmissionOptions,
  admissionOptionsFromFlags,
} from "./admission/admission_options.ts";
import {
  AUDIT_FLAG_HELP,
  AUDIT_PARSE_OPTIONS,
  type AuditOptions,
  auditOptionsFromFlags,
} from "./audit/audit_options.ts";
import {
  METRICS_FLAG_HELP,
  METRICS_PARSE_OPTIONS,
  metricsOptionsFromFlags,
} from "./metrics/metrics_options.ts";
import type { MetricsFlags } from "./metrics/metrics_lifecycle.ts";

/** Everything the server needs to start. */
export interface ServerOptions {
  /** Directory holding the embedded database, certificates and the admin kubeconfig. */
  dataDir: string;
  /** A libSQL server URL (`libsql://`, `ws://`, `wss://`, `http(s)://`); embedded if absent. */
  storageUrl?: string;
  /** Auth token for the libSQL server (from LIBSQL_AUTH_TOKEN; never a flag). */
  storageAuthToken?: string;
  securePort: number;
  bindAddress: string;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  tlsSans: string[];
  /** `--proxy-client-cert-file`: the client certificate presented to extension API servers. */
  proxyClientCertFile?: string;
  /** `--proxy-client-key-file`: its key. */
  proxyClientKeyFile?: string;
  /** How the server reaches node agents (`--kubelet-*`). */
  kubeletClient?: KubeletClientOptions;
  /** Streams an HTTP/2 client may open at once on one connection; 0 turns HTTP/2 off. */
  http2MaxStreamsPerConnection: number;
  /** How long history stays readable, ms. */
  historyWindowMs: number;
  /** How long a node may go without a heartbeat before it is marked Unknown, ms (default 40 s). */
  nodeMonitorGracePeriodMs: number;
  featureGates: FeatureGates;
  /** `--service-cluster-ip-range` (IPv4 CIDR; default 10.96.0.0/12). */
  serviceClusterIPRange?: string;
  /** `--service-node-port-range` (default 30000-32767). */
  serviceNodePortRange?: string;
  /** Watch cache timing and sizes (not a flag; tests shorten bookmark intervals with it). */
  watchTuning?: WatchTuning;
  /**
   * Whether this server runs the namespace controller, the garbage collector and the node
   * lifecycle controller (default true). Not a flag: tests turn them off to watch another
   * server's controllers act.
   */
  runControllers?: boolean;
  /** `--disable-scheduler`: this server runs no scheduler (default: it runs one). */
  disableScheduler?: boolean;
  /** The APIService availability controller's resync period, ms (not a flag; default 30 s). */
  aggregatorResyncMs?: number;
  verbosity: number;
  /** Warnings to log at start (deprecated gates...). */
  warnings: string[];
  /** The authorization modes and policy file. */
  authorization: AuthorizationOptions;
  /** How requests are authenticated (the authentication flags). */
  authentication: AuthenticationOptions;
  /** Extension-server mode (`--authentication-kubeconfig`, `--authorization-kubeconfig`). */
  delegation?: DelegationOptions;
  /** Which controllers run and how the CSR controllers sign and approve. */
  controllers?: ControllerOptions;
  /** The admission plugins to run. */
  admission: AdmissionOptions;
  /** `--shutdown-delay-duration`: after SIGTERM, readyz fails and requests are still served
   * this long (ms) before the listener closes. */
  shutdownDelayMs: number;
  /** `--shutdown-watch-termination-grace-period`: how long (ms) watches and the last responses
   * get to finish writing once the listener closed (at least 1 s). */
  shutdownWatchTerminationGracePeriodMs: number;
  /** `--livez-grace-period`: post-start hooks pass `/livez` this long (ms) after start. */
  livezGracePeriodMs: number;
  /** `--runtime-config`: the built-in group versions and resources served. */
  runtimeConfig?: RuntimeConfig;
  /** The audit policy and log (`--audit-*`); absent, nothing is audited. */
  audit?: AuditOptions;
  /** `--show-hidden-metrics-for-version` and `--disabled-metrics`. */
  metrics?: MetricsFlags;
  /** The metrics.k8s.io scraping (`--metrics-resolution`, `--kubelet-*`); default when absent. */
  resourceMetrics?: ResourceMetricsOptions;
}

/** The result of parsing flags: options, or every problem found. */
export type ParsedOptions =
  | { ok: true; options: ServerOptions }
  | { ok: false; errors: string[] };

/** The flags, with their help text. */
export const FLAG_HELP: Record<string, string> = {
  "data-dir":
    "directory for the embedded database, certificates and admin.kubeconfig (default ./data)",
  "storage-url":
    "libSQL server URL (libsql://, ws://, wss://); default: embedded file in --data-dir",
  "secure-port": "HTTPS port (default 6443; 0 picks a free port)",
  "bind-address": "address to listen on (default 0.0.0.0)",
  "tls-cert-file": "serving certificate (PEM); default: generated under --data-dir",
  "tls-private-key-file": "key of --tls-cert-file (PEM)",
  "tls-san": "extra subject alternative name for the generated serving certificate (repeatable)",
  "proxy-client-cert-file":
    "client certificate (PEM) presented to extension API servers; default: generated under --data-dir from a front-proxy CA",
  "proxy-client-key-file": "key of --proxy-client-cert-file (PEM)",
  "service-cluster-ip-range": "IPv4 CIDR ClusterIPs are allocated from (default 10.96.0.0/12)",
  "service-node-port-range": "port range NodePorts are allocated from (default 30000-32767)",
  "history-window": "how long the change history stays readable (default 5m)",
  "http2-max-streams-per-connection":
    "streams an HTTP/2 client may open at once on one connection (default 1000; 0 serves HTTP/1.1 only)",
  "feature-gates": componentFeatureGatesFlagHelp(new FeatureGates(KNOWN_FEATURES)),
  "runtime-config":
    "comma-separated <group>/<version>[/<resource>][=true|false], api/all, api/ga, api/beta, api/alpha, api/legacy (repeatable)",
  "node-monitor-grace-period":
    "how long a node may go without a heartbeat before it is marked Unknown (default 40s)",
  "disable-scheduler": "run no scheduler in this server (pods without a node stay Pending)",
  "shutdown-delay-duration":
    "after SIGTERM, readyz fails and requests are still served this long before the listener closes (default 0s)",
  "shutdown-watch-termination-grace-period":
    "how long watches and in-flight responses get to finish once the listener closed (default 0s)",
  "livez-grace-period": "post-start hooks pass /livez for this long after start (default 0s)",
  "v": "log verbosity (2 logs every request)",
  ...AUTHZ_FLAG_HELP,
  ...AUTHN_FLAG_HELP,
  ...DELEGATION_FLAG_HELP,
  ...CONTROLLER_FLAG_HELP,
  ...ADMISSION_FLAG_HELP,
  ...AUDIT_FLAG_HELP,
  ...METRICS_FLAG_HELP,
  ...RESOURCE_METRICS_FLAG_HELP,
  ...KUBELET_FLAG_HELP,
};

/** The `node:util` parseArgs option specs of the server's own flags. */
const SERVER_PARSE_OPTIONS = {
  "data-dir": { type: "string" },
  "storage-url": { type: "string" },
  "secure-port": { type: "string" },
  "bind-address": { type: "string" },
  "tls-cert-file": { type: "string" },
  "tls-private-key-file": { type: "string" },
  "tls-san": { type: "string", multiple: true },
  "proxy-client-cert-file": { type: "string" },
  "proxy-client-key-file": { type: "string" },
  "service-cluster-ip-range": { type: "string" },
  "service-node-port-range": { type: "string" },
  "history-window": { type: "string" },
  "http2-max-streams-per-connection": { type: "string" },
  "feature-gates": { type: "string", multiple: true },
  "runtime-config": { type: "string", multiple: true },
  "node-monitor-grace-period": { type: "string" },
  "disable-scheduler": { type: "string" },
  "shutdown-delay-duration": { type: "string" },
  "shutdown-watch-termination-grace-period": { type: "string" },
  "livez-grace-period": { type: "string" },
  "v": { type: "string", short: "v" },
  "help": { type: "boolean", short: "h" },
} as const;

/** The flags' raw values as `node:util` parseArgs returns them. */
type FlagValues = Record<string, string | string[] | boolean | undefined>;

/** Parses and validates command-line flags. */
export function parseServerOptions(
  args: string[],
  env: (k: string) => string | undefined = (k) => Deno.env.get(k),
): ParsedOptions {
  const errors: string[] = [];
  const values = readFlags(args);
  if (typeof values === "string") return { ok: false, errors: [values] };
  const str = (k: string) => values[k] as string | undefined;
  const port = securePort(str("secure-port"), errors);
  const historyWindowMs = positiveDuration("history-window", str("history-window"), "5m", errors);
  const http2MaxStreamsPerConnection = http2MaxStreams(
    str("http2-max-streams-per-connection"),
    errors,
  );
  const nodeMonitorGracePeriodMs = positiveDuration(
    "node-monitor-grace-period",
    str("node-monitor-grace-period"),
    "40s",
    errors,
  );
  const url = storageUrl(str("storage-url"), errors);
  const cert = str("tls-cert-file");
  const key = str("tls-private-key-file");
  for (const [a, b] of [["tls-cert-file", "tls-private-key-file"], PROXY_CLIENT_FLAGS]) {
    if ((str(a) === undefined) !== (str(b) === undefined)) {
      errors.push(`--${a} and --${b} must be given together`);
    }
  }
  const verbosity = verbosityFlag(str("v"), errors);
  const disableScheduler = str("disable-scheduler");
  if (disableScheduler !== undefined && !["true", "false"].includes(disableScheduler)) {
    errors.push(`--disable-scheduler: invalid value "${disableScheduler}" (true or false)`);
  }
  const gates = componentFeatureGatesFromFlags(
    (values["feature-gates"] as string[]) ?? [],
    KNOWN_FEATURES,
  );
  errors.push(...gates.errors.map((e) => `--feature-gates: ${e}`));
  const serviceClusterIPRange = str("service-cluster-ip-range") ?? "10.96.0.0/12";
  const serviceNodePortRange = str("service-node-port-range") ?? "30000-32767";
  serviceRanges(serviceClusterIPRange, serviceNodePortRange, errors);
  const authentication = authenticationOptionsFromFlags(values, errors, gates.gates);
  const authorization = authorizationOptionsFromFlags(values, errors);
  const controllers = controllerOptionsFromFlags(values, errors);
  const admission = admissionOptionsFromFlags(values, errors);
  const more = moreOptions(values, errors);
  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    options: {
      dataDir: str("data-dir") ?? "./data",
      storageUrl: url,
      storageAuthToken: env("LIBSQL_AUTH_TOKEN"),
      securePort: port,
      bindAddress: str("bind-address") ?? "0.0.0.0",
      tlsCertFile: cert,
      tlsPrivateKeyFile: key,
      tlsSans: commaList(values["tls-san"] as string[] | undefined),
      proxyClientCertFile: str("proxy-client-cert-file"),
      proxyClientKeyFile: str("proxy-client-key-file"),
      http2MaxStreamsPerConnection,
      historyWindowMs: historyWindowMs!,
      nodeMonitorGracePeriodMs: nodeMonitorGracePeriodMs!,
      disableScheduler: disableScheduler === "true",
      featureGates: gates.gates,
      serviceClusterIPRange,
      serviceNodePortRange,
      verbosity,
      warnings: gates.warnings,
      authorization,
      authentication,
      controllers,
      admission,
      ...more,
    },
  };
}

const PROXY_CLIENT_FLAGS = ["proxy-client-cert-file", "proxy-client-key-file"];

/** The flag values of `args` (boolean flags normalised), or why they cannot be parsed. */
function readFlags(args: string[]): FlagValues | string {
  try {
    return parseArgs({
      args: normalizeResourceMetricsFlags(
        normalizeControllerBoolFlags(normalizeDelegationBoolFlags(normalizeBoolFlags(args))),
      )
        .map((a) => a === "--disable-scheduler" ? "--disable-scheduler=true" : a),
      strict: true,
      allowPositionals: false,
      options: {
        ...SERVER_PARSE_OPTIONS,
        ...AUTHZ_PARSE_OPTIONS,
        ...AUTHN_PARSE_OPTIONS,
        ...DELEGATION_PARSE_OPTIONS,
        ...CONTROLLER_PARSE_OPTIONS,
        ...ADMISSION_PARSE_OPTIONS,
        ...AUDIT_PARSE_OPTIONS,
        ...METRICS_PARSE_OPTIONS,
        ...RESOURCE_METRICS_PARSE_OPTIONS,
        ...KUBELET_PARSE_OPTIONS,
      },
    }).values;
  } catch (err) {
    return (err as Error).message;
  }
}

/** The audit, runtime-config, lifecycle and metric options. */
function moreOptions(values: FlagValues, errors: string[]) {
  const audit = auditOptionsFromFlags(values, errors);
  const delegation = delegationOptionsFromFlags(values, errors);
  const runtimeConfig = parseRuntimeConfig(
    (values["runtime-config"] as string[] | undefined) ?? [],
    errors,
  );
  const lifecycle = (flag: string) =>
    nonNegativeDuration(flag, values[flag] as string | undefined, errors);
  return {
    ...(audit ? { audit } : {}),
    ...(delegation ? { delegation } : {}),
    runtimeConfig,
    kubeletClient: kubeletClientOptionsFromFlags(values, errors),
    shutdownDelayMs: lifecycle("shutdown-delay-duration"),
    shutdownWatchTerminationGracePeriodMs: lifecycle("shutdown-watch-termination-grace-period"),
    livezGracePeriodMs: lifecycle("livez-grace-period"),
    metrics: metricsOptionsFromFlags(values, errors),
    resourceMetrics: resourceMetricsOptionsFromFlags(values, errors),
  };
}

/** Checks `--service-cluster-ip-range` and `--service-node-port-range`. */
function serviceRanges(cidr: string, ports: string, errors: string[]): void {
  for (
    const [flag, check] of [
      ["service-cluster-ip-range", () => parseCIDR(cidr)],
      ["service-node-port-range", () => parsePortRange(ports)],
    ] as const
  ) {
    try {
      check();
    } catch (err) {
      errors.push(`--${flag}: ${(err as Error).message}`);
    }
  }
}

/** `--secure-port`, default 6443. */
function securePort(text: string | undefined, errors: string[]): number {
  const port = Number(text ?? "6443");
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    errors.push(
      `--secure-port: must be an integer from 0 to 65535, got ${JSON.stringify(text)}`,
    );
  }
  return port;
}

/** A positive duration flag, in ms; `fallback` is the default and the example. */
function positiveDuration(
  flag: string,
  given: string | undefined,
  fallback: string,
  errors: string[],
): number | undefined {
  const text = given ?? fallback;
  const ms = tryParseDurationMs(text);
  if (ms === undefined || ms <= 0) {
    errors.push(
      `--${flag}: must be a positive duration such as ${fallback}, got ${JSON.stringify(text)}`,
    );
  }
  return ms;
}

/** A duration flag that may be zero (default 0s), in ms. */
function nonNegativeDuration(flag: string, given: string | undefined, errors: string[]): number {
  const ms = tryParseDurationMs(given ?? "0s");
  if (ms === undefined || ms < 0) {
    errors.push(
      `--${flag}: must be a non-negative duration such as 5s, got ${JSON.stringify(given)}`,
    );
    return 0;
  }
  return ms;
}

/** `--http2-max-streams-per-connection`: 0 to 2^31-1. */
function http2MaxStreams(given: string | undefined, errors: string[]): number {
  const text = given ?? String(HTTP2_MAX_STREAMS);
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > 2 ** 31 - 1) {
    errors.push(
      `--http2-max-streams-per-connection: must be a non-negative integer, got ${
        JSON.stringify(text)
      }`,
    );
  }
  return n;
}

/** `--storage-url`: a libSQL server URL, or undefined (embedded). */
function storageUrl(url: string | undefined, errors: string[]): string | undefined {
  if (url !== undefined && !/^(libsql|wss?|https?):\/\//.test(url)) {
    errors.push(
      `--storage-url: must start with libsql://, ws://, wss://, http:// or https://, got ${
        JSON.stringify(url)
      }`,
    );
  }
  return url;
}

/** `-v`, default 0. */
function verbosityFlag(text: string | undefined, errors: string[]): number {
  try {
    return parseVerbosity((text ?? "0").replace(/^=/, ""));
  } catch (err) {
    errors.push(`-v: ${(err as Error).message}`);
    return 0;
  }
}

/** The items of a repeatable, comma-separated flag, trimmed, empty ones dropped. */
function commaList(values: string[] | undefined): string[] {
  return (values ?? []).flatMap((s) => s.split(",")).map((s) => s.trim()).filter((s) => s !== "");
}
