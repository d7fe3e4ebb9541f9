/**
 * The flags of extension-server mode, named as kube's generic API server names them
 * (`DelegatingAuthenticationOptions`, `DelegatingAuthorizationOptions`): with
 * `--authentication-kubeconfig` the server also authenticates bearer tokens by TokenReview
 * against the server that kubeconfig names (the main server) and, unless
 * `--authentication-skip-lookup`, reads that server's `kube-system/extension-apiserver-authentication`
 * ConfigMap for the front proxy's CA, allowed names and headers (and its client CA) where
 * `--requestheader-client-ca-file` (`--client-ca-file`) is not given; with
 * `--authorization-kubeconfig` it authorizes by SubjectAccessReview against that server, after
 * `--authorization-always-allow-paths` and `--authorization-always-allow-groups`. In this mode the
 * webhook cache flags take the generic server's defaults (10s) instead of kube-apiserver's.
 *
 * @module
 */
import { statSync } from "node:fs";
import { tryParseDurationMs } from "../../shared/time/duration.ts";

/** Extension-server mode; absent when neither kubeconfig flag is given. */
export interface DelegationOptions {
  /** `--authentication-kubeconfig`: TokenReview and the ConfigMap lookup go there. */
  authenticationKubeconfig?: string;
  /** `--authorization-kubeconfig`: SubjectAccessReview goes there. */
  authorizationKubeconfig?: string;
  /** `--authentication-skip-lookup` (default false). */
  skipLookup: boolean;
  /** `--authentication-tolerate-lookup-failure` (default false). */
  tolerateLookupFailure: boolean;
  /** `--authentication-token-webhook-cache-ttl`, ms (default 10s in this mode). */
  tokenCacheTtlMs: number;
  /** `--authorization-webhook-cache-authorized-ttl`, ms (default 10s in this mode). */
  allowCacheTtlMs: number;
  /** `--authorization-webhook-cache-unauthorized-ttl`, ms (default 10s in this mode). */
  denyCacheTtlMs: number;
  /** `--authorization-always-allow-paths` (default /healthz, /readyz, /livez). */
  alwaysAllowPaths: string[];
  /** `--authorization-always-allow-groups` (default system:masters). */
  alwaysAllowGroups: string[];
}

/** The generic API server's defaults. */
export const DELEGATION_DEFAULTS = {
  cacheTtl: "10s",
  alwaysAllowPaths: ["/healthz", "/readyz", "/livez"],
  alwaysAllowGroups: ["system:masters"],
} as const;

/** Boolean flags (bare or `=true|false`). */
export const DELEGATION_BOOL_FLAGS = [
  "authentication-skip-lookup",
  "authentication-tolerate-lookup-failure",
] as const;

/** The flags' help. */
export const DELEGATION_FLAG_HELP: Record<string, string> = {
  "authentication-kubeconfig":
    "extension-server mode: kubeconfig of the main API server, which answers TokenReviews and publishes kube-system/extension-apiserver-authentication; the server keeps serving what it serves from its own storage (built-in groups per --runtime-config, its custom resources), and the main server's APIServices choose which group versions reach it",
  "authorization-kubeconfig":
    "extension-server mode: kubeconfig of the main API server, which answers SubjectAccessReviews",
  "authentication-skip-lookup":
    "do not read the front proxy's CA, names and headers (and the client CA) from the main server's extension-apiserver-authentication ConfigMap (default false)",
  "authentication-tolerate-lookup-failure":
    "start even when that ConfigMap cannot be read (proxied requests are then anonymous) (default false)",
  "authorization-always-allow-paths":
    "comma-separated paths authorized without asking the main server (default /healthz,/readyz,/livez; a trailing * matches a prefix)",
  "authorization-always-allow-groups":
    "comma-separated groups allowed everything (default system:masters)",
};

/** The parseArgs option specs of the flags. */
export const DELEGATION_PARSE_OPTIONS = {
  "authentication-kubeconfig": { type: "string" },
  "authorization-kubeconfig": { type: "string" },
  "authentication-skip-lookup": { type: "string" },
  "authentication-tolerate-lookup-failure": { type: "string" },
  "authorization-always-allow-paths": { type: "string", multiple: true },
  "authorization-always-allow-groups": { type: "string", multiple: true },
} as const;

/** Rewrites the bare boolean flags to `=true`. */
export function normalizeDelegationBoolFlags(args: string[]): string[] {
  const bools = new Set<string>(DELEGATION_BOOL_FLAGS.map((f) => `--${f}`));
  return args.map((a) => (bools.has(a) ? `${a}=true` : a));
}

type FlagValues = Record<string, string | string[] | boolean | undefined>;

function list(v: FlagValues[string]): string[] | undefined {
  if (v === undefined || typeof v === "boolean") return undefined;
  return (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(",")).map((s) => s.trim())
    .filter((s) => s !== "");
}

function bool(values: FlagValues, k: string, errors: string[]): boolean {
  const v = values[k];
  if (typeof v !== "string") return false;
  if (/^(true|1|t)$/i.test(v)) return true;
  if (!/^(false|0|f)$/i.test(v)) {
    errors.push(`--${k}: must be true or false, got ${JSON.stringify(v)}`);
  }
  return false;
}

function duration(values: FlagValues, k: string, errors: string[]): number {
  const text = typeof values[k] === "string" ? values[k] as string : DELEGATION_DEFAULTS.cacheTtl;
  const ms = tryParseDurationMs(text);
  if (ms === undefined || ms < 0) {
    errors.push(`--${k}: must be a duration such as 10s, got ${JSON.stringify(text)}`);
    return 0;
  }
  return ms;
}

function kubeconfigFlag(values: FlagValues, k: string, errors: string[]): string | undefined {
  const path = values[k];
  if (typeof path !== "string") return undefined;
  try {
    if (!statSync(path).isFile()) errors.push(`--${k}: ${path} is not a file`);
  } catch {
    errors.push(`--${k}: ${path} does not exist or cannot be read`);
  }
  return path;
}

/** Parses the flags; undefined when the server is not in extension-server mode. */
export function delegationOptionsFromFlags(
  values: FlagValues,
  errors: string[],
): DelegationOptions | undefined {
  const authenticationKubeconfig = kubeconfigFlag(values, "authentication-kubeconfig", errors);
  const authorizationKubeconfig = kubeconfigFlag(values, "authorization-kubeconfig", errors);
  const o: DelegationOptions = {
    authenticationKubeconfig,
    authorizationKubeconfig,
    skipLookup: bool(values, "authentication-skip-lookup", errors),
    tolerateLookupFailure: bool(values, "authentication-tolerate-lookup-failure", errors),
    tokenCacheTtlMs: duration(values, "authentication-token-webhook-cache-ttl", errors),
    allowCacheTtlMs: duration(values, "authorization-webhook-cache-authorized-ttl", errors),
    denyCacheTtlMs: duration(values, "authorization-webhook-cache-unauthorized-ttl", errors),
    alwaysAllowPaths: list(values["authorization-always-allow-paths"]) ??
      [...DELEGATION_DEFAULTS.alwaysAllowPaths],
    alwaysAllowGroups: list(values["authorization-always-allow-groups"]) ??
      [...DELEGATION_DEFAULTS.alwaysAllowGroups],
  };
  if (authenticationKubeconfig || authorizationKubeconfig) return o;
  for (const k of Object.keys(DELEGATION_PARSE_OPTIONS)) {
    if (values[k] !== undefined) {
      errors.push(`--${k}: needs --authentication-kubeconfig or --authorization-kubeconfig`);
    }
  }
  return undefined;
}
