/**
 * The authorization flags: `--authorization-mode` (comma list in priority order, default
 * `Node,RBAC`), `--authorization-policy-file` (ABAC) and the `--authorization-webhook-*` flags
 * (mode Webhook), validated with Kubernetes' messages.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { tryParseDurationMs } from "../../../shared/time/duration.ts";
import {
  type AuthorizerConfig,
  parseAuthorizationConfiguration,
} from "./authorization_configuration.ts";

/** The modes the server knows. */
export const AUTHORIZATION_MODES = [
  "AlwaysAllow",
  "AlwaysDeny",
  "ABAC",
  "Webhook",
  "RBAC",
  "Node",
] as const;

/** One authorization mode. */
export type AuthorizationMode = typeof AUTHORIZATION_MODES[number];

/** The parsed authorization options. */
export interface AuthorizationOptions {
  modes: AuthorizationMode[];
  policyFile?: string;
  /** `--authorization-webhook-config-file` (a kubeconfig naming the webhook). */
  webhookConfigFile?: string;
  /** `--authorization-webhook-version` (default v1beta1). */
  webhookVersion?: "v1" | "v1beta1";
  /** `--authorization-webhook-cache-authorized-ttl`, ms (default 5m). */
  webhookAuthorizedTtlMs?: number;
  /** `--authorization-webhook-cache-unauthorized-ttl`, ms (default 30s). */
  webhookUnauthorizedTtlMs?: number;
  /** `--authorization-config`. */
  configFile?: string;
  /** The file's authorizers, validated, in order (replace `modes` when given). */
  config?: AuthorizerConfig[];
  /** The file's text as read at start (reloads compare against it). */
  configText?: string;
  /** How often the file is re-read besides watching it, ms (not a flag; default 60 s). */
  configReloadIntervalMs?: number;
}

/** The default mode list. */
export const DEFAULT_AUTHORIZATION_MODES: AuthorizationMode[] = ["Node", "RBAC"];

/** Help text of the flags. */
export const AUTHZ_FLAG_HELP: Record<string, string> = {
  "authorization-mode":
    "ordered comma list of AlwaysAllow, AlwaysDeny, ABAC, Webhook, RBAC, Node (default Node,RBAC)",
  "authorization-policy-file": "ABAC policy file, one JSON policy per line (mode ABAC)",
  "authorization-config":
    "AuthorizationConfiguration file (ordered authorizers); excludes --authorization-mode and --authorization-webhook-*",
  "authorization-webhook-config-file": "kubeconfig naming the SubjectAccessReview webhook",
  "authorization-webhook-version": "SubjectAccessReview version sent: v1beta1 (default) or v1",
  "authorization-webhook-cache-authorized-ttl":
    "how long allow answers are cached (default 5m; 10s for the SubjectAccessReviews of --authorization-kubeconfig)",
  "authorization-webhook-cache-unauthorized-ttl":
    "how long other answers are cached (default 30s; 10s for the SubjectAccessReviews of --authorization-kubeconfig)",
};

/** The parseArgs option declarations of the flags. */
export const AUTHZ_PARSE_OPTIONS = {
  "authorization-mode": { type: "string" },
  "authorization-policy-file": { type: "string" },
  "authorization-config": { type: "string" },
  "authorization-webhook-config-file": { type: "string" },
  "authorization-webhook-version": { type: "string" },
  "authorization-webhook-cache-authorized-ttl": { type: "string" },
  "authorization-webhook-cache-unauthorized-ttl": { type: "string" },
} as const;

/** Builds the options from flag values, pushing every problem onto `errors`. */
export function authorizationOptionsFromFlags(
  values: Record<string, unknown>,
  errors: string[],
): AuthorizationOptions {
  const configFile = values["authorization-config"];
  if (typeof configFile === "string") return configFileOptions(configFile, values, errors);
  const raw = values["authorization-mode"];
  const policyFile = typeof values["authorization-policy-file"] === "string"
    ? values["authorization-policy-file"] as string
    : undefined;
  const modes: AuthorizationMode[] = [];
  const list = typeof raw === "string"
    ? raw.split(",").map((s) => s.trim()).filter((s) => s !== "")
    : [...DEFAULT_AUTHORIZATION_MODES];
  if (list.length === 0) errors.push("at least one authorization-mode must be passed");
  for (const m of list) {
    if (!(AUTHORIZATION_MODES as readonly string[]).includes(m)) {
      errors.push(`authorization-mode ${JSON.stringify(m)} is not a valid mode`);
      continue;
    }
    if (modes.includes(m as AuthorizationMode)) {
      errors.push(`authorization-mode ${JSON.stringify(m)} has mode specified more than once`);
      continue;
    }
    modes.push(m as AuthorizationMode);
  }
  if (modes.includes("ABAC") && !policyFile) {
    errors.push("authorization-mode ABAC's authorization policy file not passed");
  }
  if (!modes.includes("ABAC") && policyFile) {
    errors.push("cannot specify --authorization-policy-file without mode ABAC");
  }
  return { modes, policyFile, ...webhookFlags(values, modes, errors) };
}

/** The `--authorization-webhook-*` flags. */
function webhookFlags(
  values: Record<string, unknown>,
  modes: AuthorizationMode[],
  errors: string[],
): Partial<AuthorizationOptions> {
  const str = (k: string) => typeof values[k] === "string" ? values[k] as string : undefined;
  const file = str("authorization-webhook-config-file");
  if (modes.includes("Webhook") && !file) {
    errors.push("authorization-mode Webhook's authorization config file not passed");
  }
  if (!modes.includes("Webhook") && file) {
    errors.push("cannot specify --authorization-webhook-config-file without mode Webhook");
  }
  const version = str("authorization-webhook-version") ?? "v1beta1";
  if (version !== "v1" && version !== "v1beta1") {
    errors.push(
      `--authorization-webhook-version: must be v1 or v1beta1, got ${JSON.stringify(version)}`,
    );
  }
  const ttl = (flag: string, fallback: string) => {
    const text = str(flag) ?? fallback;
    const ms = tryParseDurationMs(text);
    if (ms === undefined || ms < 0) {
      errors.push(`--${flag}: must be a duration such as ${fallback}, got ${JSON.stringify(text)}`);
    }
    return ms ?? 0;
  };
  return {
    webhookConfigFile: file,
    webhookVersion: version === "v1" ? "v1" : "v1beta1",
    webhookAuthorizedTtlMs: ttl("authorization-webhook-cache-authorized-ttl", "5m"),
    webhookUnauthorizedTtlMs: ttl("authorization-webhook-cache-unauthorized-ttl", "30s"),
  };
}

/** The options of `--authorization-config`, which excludes the mode and webhook flags. */
function configFileOptions(
  file: string,
  values: Record<string, unknown>,
  errors: string[],
): AuthorizationOptions {
  if (
    values["authorization-mode"] !== undefined ||
    Object.keys(values).some((k) =>
      k.startsWith("authorization-webhook-") && values[k] !== undefined
    )
  ) {
    errors.push(
      "--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined",
    );
  }
  const policyFile = typeof values["authorization-policy-file"] === "string"
    ? values["authorization-policy-file"] as string
    : undefined;
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    errors.push(`--authorization-config: ${(err as Error).message}`);
    return { modes: [], configFile: file, policyFile };
  }
  const parsed = parseAuthorizationConfiguration(text);
  if (!parsed.ok) {
    errors.push(...parsed.errors.map((e) => `--authorization-config: ${file}: ${e}`));
    return { modes: [], configFile: file, policyFile };
  }
  const modes = [...new Set(parsed.authorizers.map((a) => a.type as AuthorizationMode))];
  if (modes.includes("ABAC") && !policyFile) {
    errors.push("authorization-mode ABAC's authorization policy file not passed");
  }
  return { modes, policyFile, configFile: file, config: parsed.authorizers, configText: text };
}
