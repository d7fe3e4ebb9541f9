/**
 * The authentication flags of the API server, their help, parsing and validation. Every
 * problem is reported (the caller collects them with the other flags' problems). Boolean
 * flags take Kubernetes' forms: `--anonymous-auth`, `--anonymous-auth=true|false`.
 *
 * @module
 */
import { statSync } from "node:fs";
import { tryParseDurationMs } from "../../../shared/time/duration.ts";
import type { FeatureGates } from "../../../shared/feature_gates.ts";
import {
  JWT_FLAG_HELP,
  JWT_PARSE_OPTIONS,
  type JwtAuthenticationOptions,
  jwtOptionsFromFlags,
} from "./jwt_options.ts";
import { REQUEST_HEADER_DEFAULTS } from "./request_header.ts";
import { DEFAULT_SERVICE_ACCOUNT_ISSUER } from "./service_account_token.ts";

/** How requests are authenticated. */
export interface AuthenticationOptions {
  /** `--client-ca-file`; default: the generated client CA. */
  clientCaFile?: string;
  /** `--token-auth-file`. */
  tokenAuthFile?: string;
  /** `--enable-bootstrap-token-auth`. */
  enableBootstrapTokenAuth: boolean;
  /** `--service-account-key-file` (repeatable). */
  serviceAccountKeyFiles: string[];
  /** `--service-account-signing-key-file`; default `<data-dir>/pki/sa.key` (generated). */
  serviceAccountSigningKeyFile?: string;
  /** `--service-account-issuer` (repeatable; the first signs). */
  serviceAccountIssuers: string[];
  /** `--api-audiences`; default: the issuers. */
  apiAudiences: string[];
  /** `--service-account-lookup`. */
  serviceAccountLookup: boolean;
  /** `--service-account-max-token-expiration`, seconds; undefined: no cap. */
  serviceAccountMaxTokenExpirationSeconds?: number;
  /** `--requestheader-client-ca-file`. */
  requestHeaderClientCaFile?: string;
  /** `--requestheader-allowed-names`. */
  requestHeaderAllowedNames: string[];
  requestHeaderUsernameHeaders: string[];
  requestHeaderGroupHeaders: string[];
  requestHeaderExtraHeadersPrefixes: string[];
  requestHeaderUidHeaders: string[];
  /** `--authentication-token-webhook-config-file`. */
  webhookConfigFile?: string;
  /** `--authentication-token-webhook-cache-ttl`, ms. */
  webhookCacheTtlMs: number;
  /** `--authentication-token-webhook-version`. */
  webhookVersion: "v1" | "v1beta1";
  /** `--anonymous-auth`. */
  anonymousAuth: boolean;
  /** `--authentication-config` or the `--oidc-*` flags. */
  jwt: JwtAuthenticationOptions;
}

/** The authentication options when no flag is given. */
export function defaultAuthenticationOptions(): AuthenticationOptions {
  return {
    enableBootstrapTokenAuth: false,
    serviceAccountKeyFiles: [],
    serviceAccountIssuers: [DEFAULT_SERVICE_ACCOUNT_ISSUER],
    apiAudiences: [DEFAULT_SERVICE_ACCOUNT_ISSUER],
    serviceAccountLookup: true,
    requestHeaderAllowedNames: [],
    requestHeaderUsernameHeaders: [...REQUEST_HEADER_DEFAULTS.usernameHeaders],
    requestHeaderGroupHeaders: [...REQUEST_HEADER_DEFAULTS.groupHeaders],
    requestHeaderExtraHeadersPrefixes: [...REQUEST_HEADER_DEFAULTS.extraHeaderPrefixes],
    requestHeaderUidHeaders: [],
    webhookCacheTtlMs: 120_000,
    webhookVersion: "v1beta1",
    anonymousAuth: true,
    jwt: { authenticators: [], signingAlgs: [], anonymousConfigurable: false },
  };
}

/** Boolean flags (given bare or as `=true|false`). */
export const AUTHN_BOOL_FLAGS = [
  "anonymous-auth",
  "enable-bootstrap-token-auth",
  "service-account-lookup",
] as const;

/** The flags' help texts. */
export const AUTHN_FLAG_HELP: Record<string, string> = {
  "anonymous-auth": "answer requests without credentials as system:anonymous (default true)",
  "client-ca-file":
    "CA bundle (PEM) verifying client certificates (default: the generated client CA)",
  "token-auth-file": 'CSV file of static bearer tokens: token,user,uid,"group1,group2"',
  "enable-bootstrap-token-auth": "authenticate bootstrap tokens from kube-system Secrets",
  "service-account-key-file": "PEM file of keys verifying service account tokens (repeatable)",
  "service-account-signing-key-file":
    "private key signing service account tokens (default: <data-dir>/pki/sa.key, generated)",
  "service-account-issuer":
    `issuer of service account tokens (repeatable; the first signs; default ${DEFAULT_SERVICE_ACCOUNT_ISSUER})`,
  "api-audiences": "comma-separated audiences of the API (default: the issuers)",
  "service-account-lookup":
    "reject tokens of deleted service accounts or bound objects (default true)",
  "service-account-max-token-expiration": "longest lifetime of an issued token (1h to 2^32s)",
  "requestheader-client-ca-file": "CA bundle verifying the authenticating proxy's certificate",
  "requestheader-allowed-names": "comma-separated allowed proxy certificate common names",
  "requestheader-username-headers": "comma-separated user name headers (default X-Remote-User)",
  "requestheader-group-headers": "comma-separated group headers (default X-Remote-Group)",
  "requestheader-extra-headers-prefix":
    "comma-separated extra header prefixes (default X-Remote-Extra-)",
  "requestheader-uid-headers": "comma-separated uid headers (default none)",
  "authentication-token-webhook-config-file": "kubeconfig naming a token review webhook",
  "authentication-token-webhook-cache-ttl":
    "how long webhook answers are cached (default 2m; 10s for the TokenReviews of --authentication-kubeconfig)",
  "authentication-token-webhook-version": "TokenReview version sent: v1beta1 (default) or v1",
  ...JWT_FLAG_HELP,
};

/** The `node:util` parseArgs option specs of the flags. */
export const AUTHN_PARSE_OPTIONS = {
  "anonymous-auth": { type: "string" },
  "client-ca-file": { type: "string" },
  "token-auth-file": { type: "string" },
  "enable-bootstrap-token-auth": { type: "string" },
  "service-account-key-file": { type: "string", multiple: true },
  "service-account-signing-key-file": { type: "string" },
  "service-account-issuer": { type: "string", multiple: true },
  "api-audiences": { type: "string", multiple: true },
  "service-account-lookup": { type: "string" },
  "service-account-max-token-expiration": { type: "string" },
  "requestheader-client-ca-file": { type: "string" },
  "requestheader-allowed-names": { type: "string", multiple: true },
  "requestheader-username-headers": { type: "string", multiple: true },
  "requestheader-group-headers": { type: "string", multiple: true },
  "requestheader-extra-headers-prefix": { type: "string", multiple: true },
  "requestheader-uid-headers": { type: "string", multiple: true },
  "authentication-token-webhook-config-file": { type: "string" },
  "authentication-token-webhook-cache-ttl": { type: "string" },
  "authentication-token-webhook-version": { type: "string" },
  ...JWT_PARSE_OPTIONS,
} as const;

/** Rewrites bare boolean flags (`--anonymous-auth`) to `--anonymous-auth=true`. */
export function normalizeBoolFlags(args: string[]): string[] {
  const bools = new Set<string>(AUTHN_BOOL_FLAGS.map((f) => `--${f}`));
  return args.map((a) => (bools.has(a) ? `${a}=true` : a));
}

function list(v: string | string[] | boolean | undefined): string[] | undefined {
  if (v === undefined || typeof v === "boolean") return undefined;
  const items = (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(",")).map((s) => s.trim())
    .filter((s) => s !== "");
  return items;
}

function readableFile(flag: string, path: string | undefined, errors: string[]): void {
  if (path === undefined) return;
  if (path === "") {
    errors.push(`--${flag}: must not be empty`);
    return;
  }
  try {
    if (!statSync(path).isFile()) errors.push(`--${flag}: ${path} is not a file`);
  } catch {
    errors.push(`--${flag}: ${path} does not exist or cannot be read`);
  }
}

/** The flags' raw values as `node:util` parseArgs returns them. */
type FlagValues = Record<string, string | string[] | boolean | undefined>;

/**
 * Parses and validates the authentication flags; appends every problem to `errors`. `gates`
 * decide whether the authentication configuration file (and its `anonymous`) may be used.
 */
export function authenticationOptionsFromFlags(
  values: FlagValues,
  errors: string[],
  gates?: FeatureGates,
): AuthenticationOptions {
  const o = defaultAuthenticationOptions();
  readBooleans(o, values, errors);
  readFiles(o, values, errors);
  readServiceAccountFlags(o, values, errors);
  readRequestHeaderFlags(o, values, errors);
  readWebhookFlags(o, values, errors);
  if (gates) {
    o.jwt = jwtOptionsFromFlags(values, {
      gates,
      serviceAccountIssuers: o.serviceAccountIssuers,
      anonymousAuthSet: values["anonymous-auth"] !== undefined,
    }, errors);
  }
  return o;
}

function str(values: FlagValues, k: string): string | undefined {
  return values[k] as string | undefined;
}

function bool(values: FlagValues, k: string, fallback: boolean, errors: string[]): boolean {
  const v = str(values, k);
  if (v === undefined) return fallback;
  if (/^(true|1|t)$/i.test(v)) return true;
  if (/^(false|0|f)$/i.test(v)) return false;
  errors.push(`--${k}: must be true or false, got ${JSON.stringify(v)}`);
  return fallback;
}

function readBooleans(o: AuthenticationOptions, values: FlagValues, errors: string[]): void {
  o.anonymousAuth = bool(values, "anonymous-auth", true, errors);
  o.enableBootstrapTokenAuth = bool(values, "enable-bootstrap-token-auth", false, errors);
  o.serviceAccountLookup = bool(values, "service-account-lookup", true, errors);
}

function readFiles(o: AuthenticationOptions, values: FlagValues, errors: string[]): void {
  o.clientCaFile = str(values, "client-ca-file");
  readableFile("client-ca-file", o.clientCaFile, errors);
  o.tokenAuthFile = str(values, "token-auth-file");
  readableFile("token-auth-file", o.tokenAuthFile, errors);
  o.serviceAccountKeyFiles = (values["service-account-key-file"] as string[] | undefined) ?? [];
  for (const f of o.serviceAccountKeyFiles) readableFile("service-account-key-file", f, errors);
  o.serviceAccountSigningKeyFile = str(values, "service-account-signing-key-file");
  readableFile("service-account-signing-key-file", o.serviceAccountSigningKeyFile, errors);
}

function readServiceAccountFlags(
  o: AuthenticationOptions,
  values: FlagValues,
  errors: string[],
): void {
  const issuers = list(values["service-account-issuer"]);
  if (issuers) {
    if (issuers.length === 0) errors.push("--service-account-issuer: must not be empty");
    for (const iss of issuers) checkIssuer(iss, errors);
    if (issuers.length) o.serviceAccountIssuers = issuers;
  }
  o.apiAudiences = list(values["api-audiences"]) ?? [...o.serviceAccountIssuers];
  if (o.apiAudiences.length === 0) o.apiAudiences = [...o.serviceAccountIssuers];

  const maxExp = str(values, "service-account-max-token-expiration");
  if (maxExp !== undefined) {
    const ms = tryParseDurationMs(maxExp);
    if (ms === undefined || ms < 3_600_000 || ms > 2 ** 32 * 1000) {
      errors.push(
        `--service-account-max-token-expiration: must be a duration between 1h and 2^32s, got ${
          JSON.stringify(maxExp)
        }`,
      );
    } else o.serviceAccountMaxTokenExpirationSeconds = Math.floor(ms / 1000);
  }
}

function checkIssuer(iss: string, errors: string[]): void {
  if (!iss.includes(":")) return;
  try {
    new URL(iss);
  } catch {
    errors.push(
      `--service-account-issuer: ${JSON.stringify(iss)} contains a ':' but is not a valid URL`,
    );
  }
}

function readRequestHeaderFlags(
  o: AuthenticationOptions,
  values: FlagValues,
  errors: string[],
): void {
  o.requestHeaderClientCaFile = str(values, "requestheader-client-ca-file");
  readableFile("requestheader-client-ca-file", o.requestHeaderClientCaFile, errors);
  o.requestHeaderAllowedNames = list(values["requestheader-allowed-names"]) ?? [];
  o.requestHeaderUsernameHeaders = list(values["requestheader-username-headers"]) ??
    o.requestHeaderUsernameHeaders;
  o.requestHeaderGroupHeaders = list(values["requestheader-group-headers"]) ??
    o.requestHeaderGroupHeaders;
  o.requestHeaderExtraHeadersPrefixes = list(values["requestheader-extra-headers-prefix"]) ??
    o.requestHeaderExtraHeadersPrefixes;
  o.requestHeaderUidHeaders = list(values["requestheader-uid-headers"]) ?? [];
  if (o.requestHeaderClientCaFile && o.requestHeaderUsernameHeaders.length === 0) {
    errors.push("--requestheader-username-headers: at least one header is required");
  }
  if (!o.requestHeaderClientCaFile && o.requestHeaderAllowedNames.length > 0) {
    errors.push("--requestheader-allowed-names: needs --requestheader-client-ca-file");
  }
}

function readWebhookFlags(o: AuthenticationOptions, values: FlagValues, errors: string[]): void {
  o.webhookConfigFile = str(values, "authentication-token-webhook-config-file");
  readableFile("authentication-token-webhook-config-file", o.webhookConfigFile, errors);
  const ttl = str(values, "authentication-token-webhook-cache-ttl");
  if (ttl !== undefined) {
    const ms = tryParseDurationMs(ttl);
    if (ms === undefined || ms < 0) {
      errors.push(
        `--authentication-token-webhook-cache-ttl: must be a duration such as 2m, got ${
          JSON.stringify(ttl)
        }`,
      );
    } else o.webhookCacheTtlMs = ms;
  }
  const version = str(values, "authentication-token-webhook-version");
  if (version !== undefined) {
    if (version !== "v1" && version !== "v1beta1") {
      errors.push(
        `--authentication-token-webhook-version: must be v1 or v1beta1, got ${
          JSON.stringify(version)
        }`,
      );
    } else o.webhookVersion = version;
  }
}
