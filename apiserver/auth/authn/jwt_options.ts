/**
 * The JWT authentication flags: `--authentication-config` (an AuthenticationConfiguration file,
 * read, decoded and validated at start so every problem is reported with the other flags') and
 * the `--oidc-*` flags (one issuer, turned into the same configuration as kube-apiserver does:
 * the username prefix defaults to `<issuer>#` for claims other than `email`, `-` means none).
 * The two are mutually exclusive; `anonymous` in the file excludes `--anonymous-auth`.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { fieldErrorMessage } from "../../../shared/errors/status_error.ts";
import type { FeatureGates } from "../../../shared/feature_gates.ts";
import {
  type AnonymousConfig,
  type AuthenticationConfiguration,
  decodeAuthenticationConfiguration,
  type JwtAuthenticatorConfig,
} from "./authentication_configuration.ts";
import { JWT_SIGNING_ALGORITHMS } from "./jwt_authenticator.ts";
import type { OidcKeySetTuning } from "./oidc_key_set.ts";
import {
  type CompiledJwtAuthenticator,
  validateAuthenticationConfiguration,
} from "./validate_authentication_configuration.ts";

/** The JWT part of the authentication options. */
export interface JwtAuthenticationOptions {
  /** `--authentication-config`. */
  configFile?: string;
  /** The file's text as read at start (reloads compare against it). */
  configText?: string;
  /** The compiled authenticators of the file or of the `--oidc-*` flags. */
  authenticators: CompiledJwtAuthenticator[];
  /** Accepted signature algorithms (`--oidc-signing-algs`; all of kube's with the file). */
  signingAlgs: string[];
  /** `anonymous` of the file. */
  anonymous?: AnonymousConfig;
  /** Whether the AnonymousAuthConfigurableEndpoints gate is on (reloads validate with it). */
  anonymousConfigurable: boolean;
  /** Key fetching tuning (not a flag; tests shorten it). */
  tuning?: OidcKeySetTuning;
  /** How often the file is re-read besides watching it, ms (not a flag; default 60 s). */
  reloadIntervalMs?: number;
}

/** The flags' help texts. */
export const JWT_FLAG_HELP: Record<string, string> = {
  "authentication-config":
    "AuthenticationConfiguration file (JWT authenticators, anonymous); excludes --oidc-*",
  "oidc-issuer-url": "https URL of the OpenID issuer whose ID tokens are accepted",
  "oidc-client-id": "the audience ID tokens must be issued for (with --oidc-issuer-url)",
  "oidc-ca-file": "CA bundle verifying the issuer's certificate (default: host roots)",
  "oidc-username-claim": "claim used as the user name (default sub)",
  "oidc-username-prefix":
    "prefix of user names (default <issuer>#, except for the email claim; - for none)",
  "oidc-groups-claim": "claim holding the user's groups (a string or a list of strings)",
  "oidc-groups-prefix": "prefix of group names",
  "oidc-required-claim": "key=value a token must carry (repeatable)",
  "oidc-signing-algs": `accepted signature algorithms (default RS256; of ${
    JWT_SIGNING_ALGORITHMS.join(", ")
  })`,
};

/** The `node:util` parseArgs option specs of the flags. */
export const JWT_PARSE_OPTIONS = {
  "authentication-config": { type: "string" },
  "oidc-issuer-url": { type: "string" },
  "oidc-client-id": { type: "string" },
  "oidc-ca-file": { type: "string" },
  "oidc-username-claim": { type: "string" },
  "oidc-username-prefix": { type: "string" },
  "oidc-groups-claim": { type: "string" },
  "oidc-groups-prefix": { type: "string" },
  "oidc-required-claim": { type: "string", multiple: true },
  "oidc-signing-algs": { type: "string", multiple: true },
} as const;

type FlagValues = Record<string, string | string[] | boolean | undefined>;

/** What reading the JWT flags needs from the other options. */
export interface JwtFlagContext {
  gates: FeatureGates;
  /** The service account issuers (a JWT issuer must differ). */
  serviceAccountIssuers: string[];
  /** Whether `--anonymous-auth` was given explicitly. */
  anonymousAuthSet: boolean;
}

/** Reads, decodes and validates the file or the `--oidc-*` flags; appends every problem. */
export function jwtOptionsFromFlags(
  values: FlagValues,
  ctx: JwtFlagContext,
  errors: string[],
): JwtAuthenticationOptions {
  const file = values["authentication-config"] as string | undefined;
  const oidcSet = Object.keys(JWT_PARSE_OPTIONS).some((k) =>
    k.startsWith("oidc-") && values[k] !== undefined
  );
  const out: JwtAuthenticationOptions = {
    authenticators: [],
    signingAlgs: [],
    anonymousConfigurable: ctx.gates.enabled("AnonymousAuthConfigurableEndpoints"),
  };
  if (file === undefined) {
    const config = oidcConfig(values, oidcSet, out, errors);
    if (config) validate("invalid authentication configuration", config, ctx, out, errors);
    return out;
  }
  if (!ctx.gates.enabled("StructuredAuthenticationConfiguration")) {
    errors.push(
      "set --feature-gates=StructuredAuthenticationConfiguration=true to use authentication-config file",
    );
  }
  if (oidcSet) errors.push("authentication-config file and oidc-* flags are mutually exclusive");
  out.configFile = file;
  out.signingAlgs = [...JWT_SIGNING_ALGORITHMS];
  const where = `--authentication-config: failed to load authentication configuration from file ${
    JSON.stringify(file)
  }`;
  try {
    out.configText = readFileSync(file, "utf8");
  } catch (err) {
    errors.push(`${where}: ${(err as Error).message}`);
    return out;
  }
  const decoded = decodeAuthenticationConfiguration(out.configText);
  if (!decoded.ok) {
    errors.push(...decoded.errors.map((e) => `${where}: ${e}`));
    return out;
  }
  if (decoded.config.anonymous && ctx.anonymousAuthSet) {
    errors.push(
      "--authentication-config: anonymous: Forbidden: --anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file",
    );
  }
  out.anonymous = decoded.config.anonymous;
  validate(
    "--authentication-config: invalid authentication configuration",
    decoded.config,
    ctx,
    out,
    errors,
  );
  return out;
}

function validate(
  prefix: string,
  config: AuthenticationConfiguration,
  ctx: JwtFlagContext,
  out: JwtAuthenticationOptions,
  errors: string[],
): void {
  const v = validateAuthenticationConfiguration(config, {
    disallowedIssuers: ctx.serviceAccountIssuers,
    anonymousConfigurable: out.anonymousConfigurable,
  });
  errors.push(...v.errors.map((e) => `${prefix}: ${fieldErrorMessage(e)}`));
  out.authenticators = v.authenticators;
}

/** The one-issuer configuration of the `--oidc-*` flags, or undefined when none is set. */
function oidcConfig(
  values: FlagValues,
  oidcSet: boolean,
  out: JwtAuthenticationOptions,
  errors: string[],
): AuthenticationConfiguration | undefined {
  if (!oidcSet) return undefined;
  const s = (k: string) => values[k] as string | undefined;
  const issuer = s("oidc-issuer-url") ?? "", clientId = s("oidc-client-id") ?? "";
  if (issuer === "" || clientId === "") {
    errors.push(
      "oidc-issuer-url and oidc-client-id must be specified together when any oidc-* flags are set",
    );
    return undefined;
  }
  const algs = ((values["oidc-signing-algs"] as string[] | undefined) ?? ["RS256"])
    .flatMap((a) => a.split(",")).map((a) => a.trim()).filter((a) => a !== "");
  for (const alg of algs) {
    if (!(JWT_SIGNING_ALGORITHMS as readonly string[]).includes(alg)) {
      errors.push(`--oidc-signing-algs: oidc: unsupported signing alg: ${JSON.stringify(alg)}`);
    }
  }
  out.signingAlgs = algs.length ? algs : ["RS256"];
  const claim = s("oidc-username-claim") ?? "sub";
  let prefix = s("oidc-username-prefix") ?? "";
  if (prefix === "" && claim !== "email") prefix = `${issuer}#`;
  if (prefix === "-") prefix = "";
  const jwt: JwtAuthenticatorConfig = {
    issuer: { url: issuer, audiences: [clientId] },
    claimValidationRules: requiredClaims(values, errors),
    claimMappings: { username: { claim, prefix }, groups: {}, uid: {}, extra: [] },
    userValidationRules: [],
  };
  const groups = s("oidc-groups-claim");
  if (groups) jwt.claimMappings.groups = { claim: groups, prefix: s("oidc-groups-prefix") ?? "" };
  const caFile = s("oidc-ca-file");
  if (caFile !== undefined) {
    try {
      jwt.issuer.certificateAuthority = readFileSync(caFile, "utf8");
    } catch (err) {
      errors.push(`--oidc-ca-file: ${(err as Error).message}`);
    }
  }
  return { jwt: [jwt] };
}

function requiredClaims(values: FlagValues, errors: string[]) {
  return ((values["oidc-required-claim"] as string[] | undefined) ?? []).flatMap((pair) => {
    const eq = pair.indexOf("=");
    if (eq < 0) {
      errors.push(
        `--oidc-required-claim: malformed pair, expect string=string, got ${JSON.stringify(pair)}`,
      );
      return [];
    }
    return [{ claim: pair.slice(0, eq).trim(), requiredValue: pair.slice(eq + 1).trim() }];
  });
}
