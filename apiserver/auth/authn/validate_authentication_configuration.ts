/**
 * Kubernetes' validation of an AuthenticationConfiguration, with its field paths and messages:
 * at most 64 JWT authenticators, issuer URLs (https, no user, query or fragment, unique, not a
 * service account issuer), discovery URLs, audiences and their match policy, the CA bundle,
 * claim validation rules, claim mappings (the `claims.email` / `claims.email_verified` rule),
 * extra keys, user validation rules and `anonymous`. CEL expressions are compiled here; the
 * compiled programs are what the JWT authenticators run.
 *
 * @module
 */
import type { FieldError } from "../../../shared/errors/status_error.ts";
import {
  duplicate,
  forbidden,
  invalid,
  required,
} from "../../../shared/api/validation/field_errors.ts";
import { validateDomainPrefixedPath } from "../../../shared/api/validation/network_addresses.ts";
import { parseCertificateBundle } from "../../../shared/pki/verify_client_certificate.ts";
import {
  type CelEnvironment,
  type CelProgram,
  claimMappingEnvironment,
  userValidationEnvironment,
} from "../../cel/mod.ts";
import type {
  AuthenticationConfiguration,
  JwtAuthenticatorConfig,
  PrefixedClaimOrExpression,
} from "./authentication_configuration.ts";

/** The most JWT authenticators a configuration may hold. */
export const MAX_JWT_AUTHENTICATORS = 64;

/** A compiled validation rule: the program and the message shown when it is false. */
export interface CompiledRule {
  program: CelProgram;
  message: string;
}

/** A JWT authenticator with its expressions compiled. */
export interface CompiledJwtAuthenticator {
  config: JwtAuthenticatorConfig;
  /** The environments the programs were compiled in (their activations convert values). */
  envs: { claims: CelEnvironment; user: CelEnvironment };
  username?: CelProgram;
  groups?: CelProgram;
  uid?: CelProgram;
  extra: { key: string; program: CelProgram }[];
  /** `claim` + `requiredValue` rules. */
  requiredClaims: { claim: string; value: string }[];
  claimRules: CompiledRule[];
  userRules: CompiledRule[];
}

/** What validation needs besides the configuration. */
export interface AuthenticationValidationContext {
  /** The service account issuers: a JWT issuer must differ from them. */
  disallowedIssuers: string[];
  /** Whether the AnonymousAuthConfigurableEndpoints gate is on. */
  anonymousConfigurable: boolean;
}

/** The result: every problem, and the compiled authenticators (meaningful when none). */
export interface ValidatedAuthenticationConfiguration {
  errors: FieldError[];
  authenticators: CompiledJwtAuthenticator[];
}

/** Validates `config` as kube-apiserver does and compiles its expressions. */
export function validateAuthenticationConfiguration(
  config: AuthenticationConfiguration,
  ctx: AuthenticationValidationContext,
): ValidatedAuthenticationConfiguration {
  const errors: FieldError[] = [];
  const authenticators: CompiledJwtAuthenticator[] = [];
  if (config.jwt.length > MAX_JWT_AUTHENTICATORS) {
    errors.push({
      type: "FieldValueTooMany",
      field: "jwt",
      detail: `${config.jwt.length}: must have at most ${MAX_JWT_AUTHENTICATORS} items`,
    });
    return { errors, authenticators };
  }
  const envs = { claims: claimMappingEnvironment(), user: userValidationEnvironment() };
  const issuers = new Set<string>(), discoveryURLs = new Set<string>();
  config.jwt.forEach((a, i) => {
    const path = `jwt[${i}]`;
    authenticators.push(validateJwtAuthenticator(a, path, ctx, envs, errors));
    if (issuers.has(a.issuer.url)) errors.push(duplicate(`${path}.issuer.url`, a.issuer.url));
    issuers.add(a.issuer.url);
    const d = a.issuer.discoveryURL;
    if (d) {
      if (discoveryURLs.has(d)) errors.push(duplicate(`${path}.issuer.discoveryURL`, d));
      discoveryURLs.add(d);
    }
  });
  if (config.anonymous) {
    if (!ctx.anonymousConfigurable) {
      errors.push(forbidden(
        "anonymous",
        "anonymous is not supported when AnonymousAuthConfigurableEndpoints feature gate is disabled",
      ));
    }
    if (!config.anonymous.enabled && config.anonymous.conditions.length > 0) {
      errors.push(invalid(
        "anonymous.conditions",
        config.anonymous.conditions,
        "enabled should be set to true when conditions are defined",
      ));
    }
  }
  return { errors, authenticators };
}

interface Envs {
  claims: CelEnvironment;
  user: CelEnvironment;
}

/** Whether an expression selects `claims.<field>` (or `claims.?<field>`). */
function selects(expression: string, field: string): boolean {
  const code = expression.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""');
  return new RegExp(`\\bclaims\\s*\\.\\s*\\??\\s*${field}\\b`).test(code);
}

function validateJwtAuthenticator(
  a: JwtAuthenticatorConfig,
  path: string,
  ctx: AuthenticationValidationContext,
  envs: Envs,
  errors: FieldError[],
): CompiledJwtAuthenticator {
  const out: CompiledJwtAuthenticator = {
    config: a,
    envs,
    extra: [],
    requiredClaims: [],
    claimRules: [],
    userRules: [],
  };
  validateIssuer(a, `${path}.issuer`, ctx, errors);
  validateClaimRules(a, `${path}.claimValidationRules`, envs, out, errors);
  validateClaimMappings(a, `${path}.claimMappings`, envs, out, errors);
  validateUserRules(a, `${path}.userValidationRules`, envs, out, errors);
  return out;
}

function validateIssuer(
  a: JwtAuthenticatorConfig,
  path: string,
  ctx: AuthenticationValidationContext,
  errors: FieldError[],
): void {
  const { url, discoveryURL, audiences, audienceMatchPolicy, certificateAuthority } = a.issuer;
  if (url === "") errors.push(required(`${path}.url`));
  else validateURL(url, ctx.disallowedIssuers, `${path}.url`, errors);
  if (discoveryURL) {
    if (url !== "" && url.replace(/\/+$/, "") === discoveryURL.replace(/\/+$/, "")) {
      errors.push(
        invalid(`${path}.discoveryURL`, discoveryURL, "discoveryURL must be different from URL"),
      );
    }
    validateURL(discoveryURL, [], `${path}.discoveryURL`, errors);
  }
  validateAudiences(audiences, audienceMatchPolicy, path, errors);
  if (certificateAuthority) {
    try {
      parseCertificateBundle(certificateAuthority);
    } catch (err) {
      errors.push(
        invalid(`${path}.certificateAuthority`, "<omitted>", (err as Error).message),
      );
    }
  }
}

function validateURL(url: string, disallowed: string[], path: string, errors: FieldError[]): void {
  if (disallowed.includes(url)) {
    errors.push(invalid(
      path,
      url,
      `URL must not overlap with disallowed issuers: [${[...disallowed].sort().join(" ")}]`,
    ));
  }
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    const detail = /^[a-z][a-z0-9+.-]*:/i.test(url)
      ? `parse ${JSON.stringify(url)}: invalid URL`
      : "URL scheme must be https";
    errors.push(invalid(path, url, detail));
    return;
  }
  if (u.protocol !== "https:") errors.push(invalid(path, url, "URL scheme must be https"));
  if (u.username || u.password) {
    errors.push(invalid(path, url, "URL must not contain a username or password"));
  }
  if (u.search.length > 1 || /\?./.test(url)) {
    errors.push(invalid(path, url, "URL must not contain a query"));
  }
  if (u.hash.length > 1) errors.push(invalid(path, url, "URL must not contain a fragment"));
}

function validateAudiences(
  audiences: string[],
  policy: string | undefined,
  path: string,
  errors: FieldError[],
): void {
  const field = `${path}.audiences`;
  if (audiences.length === 0) {
    errors.push(required(field, `at least one ${field} is required`));
    return;
  }
  const seen = new Set<string>();
  audiences.forEach((aud, i) => {
    if (aud === "") errors.push(required(`${field}[${i}]`));
    if (seen.has(aud)) errors.push(duplicate(`${field}[${i}]`, aud));
    seen.add(aud);
  });
  const policyField = `${path}.audienceMatchPolicy`;
  if (audiences.length > 1 && policy !== "MatchAny") {
    errors.push(
      invalid(
        policyField,
        policy ?? "",
        "audienceMatchPolicy must be MatchAny for multiple audiences",
      ),
    );
  }
  if (audiences.length === 1 && policy && policy !== "MatchAny") {
    errors.push(invalid(
      policyField,
      policy,
      "audienceMatchPolicy must be empty or MatchAny for single audience",
    ));
  }
}

/** Compiles `expression`; a compile error or a result of the wrong type is a field error. */
function compile(
  env: CelEnvironment,
  expression: string,
  field: string,
  errors: FieldError[],
  want?: "bool",
): CelProgram | undefined {
  const c = env.compile(expression);
  if (!c.ok) {
    const issues = c.errors.map((e) => `ERROR: ${e.detail}`).join("\n");
    errors.push(invalid(field, expression, `compilation failed: ${issues}`));
    return undefined;
  }
  const got = c.program.outputType;
  if (want && got !== want && got !== "dyn") {
    errors.push(invalid(field, expression, `must evaluate to one of [${want}]`));
    return undefined;
  }
  return c.program;
}

function validateClaimRules(
  a: JwtAuthenticatorConfig,
  path: string,
  envs: Envs,
  out: CompiledJwtAuthenticator,
  errors: FieldError[],
): void {
  const claims = new Set<string>(), expressions = new Set<string>();
  a.claimValidationRules.forEach((rule, i) => {
    const p = `${path}[${i}]`;
    if (rule.claim && rule.expression) {
      errors.push(invalid(p, rule.claim, "claim and expression can't both be set"));
    } else if (!rule.claim && !rule.expression) {
      errors.push(required(p, "claim or expression is required"));
    } else if (rule.claim) {
      if (rule.message) {
        errors.push(
          invalid(`${p}.message`, rule.message, "may not be specified when claim is set"),
        );
      }
      if (claims.has(rule.claim)) errors.push(duplicate(`${p}.claim`, rule.claim));
      claims.add(rule.claim);
      out.requiredClaims.push({ claim: rule.claim, value: rule.requiredValue ?? "" });
    } else if (rule.expression) {
      if (rule.requiredValue) {
        errors.push(invalid(
          `${p}.requiredValue`,
          rule.requiredValue,
          "may not be specified when expression is set",
        ));
      }
      if (expressions.has(rule.expression)) {
        errors.push(duplicate(`${p}.expression`, rule.expression));
        return;
      }
      expressions.add(rule.expression);
      const program = compile(envs.claims, rule.expression, `${p}.expression`, errors, "bool");
      if (program) out.claimRules.push({ program, message: rule.message ?? "" });
    }
  });
}

/** A username or groups mapping: claim with prefix, or expression without. */
function prefixedMapping(
  m: PrefixedClaimOrExpression,
  path: string,
  isRequired: boolean,
  envs: Envs,
  errors: FieldError[],
): CelProgram | undefined {
  if (m.expression && m.claim) {
    errors.push(invalid(path, "", "claim and expression can't both be set"));
  } else if (!m.expression && !m.claim && isRequired) {
    errors.push(required(path, "claim or expression is required"));
  } else if (m.expression) {
    if (m.prefix !== undefined) {
      errors.push(
        invalid(`${path}.prefix`, m.prefix, "may not be specified when expression is set"),
      );
    }
    return compile(envs.claims, m.expression, `${path}.expression`, errors);
  } else if (m.claim && m.prefix === undefined) {
    errors.push(required(
      `${path}.prefix`,
      "prefix is required when claim is set. It can be set to an empty string to disable prefixing",
    ));
  }
  return undefined;
}

function validateClaimMappings(
  a: JwtAuthenticatorConfig,
  path: string,
  envs: Envs,
  out: CompiledJwtAuthenticator,
  errors: FieldError[],
): void {
  const m = a.claimMappings;
  out.username = prefixedMapping(m.username, `${path}.username`, true, envs, errors);
  out.groups = prefixedMapping(m.groups, `${path}.groups`, false, envs, errors);
  if (m.uid.claim && m.uid.expression) {
    errors.push(invalid(`${path}.uid`, "", "claim and expression can't both be set"));
  } else if (m.uid.expression) {
    out.uid = compile(envs.claims, m.uid.expression, `${path}.uid.expression`, errors);
  }
  validateExtra(a, path, envs, out, errors);
  const usesEmail = !!out.username && selects(m.username.expression ?? "", "email");
  const verified = [
    ...(out.username ? [m.username.expression ?? ""] : []),
    ...out.extra.map((e) => e.program.expression),
    ...out.claimRules.map((r) => r.program.expression),
  ].some((e) => selects(e, "email_verified"));
  if (usesEmail && !verified) {
    errors.push(invalid(
      `${path}.username.expression`,
      m.username.expression,
      "claims.email_verified must be used in claimMappings.username.expression or claimMappings.extra[*].valueExpression or claimValidationRules[*].expression when claims.email is used in claimMappings.username.expression",
    ));
  }
}

function validateExtra(
  a: JwtAuthenticatorConfig,
  path: string,
  envs: Envs,
  out: CompiledJwtAuthenticator,
  errors: FieldError[],
): void {
  const seen = new Set<string>();
  a.claimMappings.extra.forEach((e, i) => {
    const p = `${path}.extra[${i}]`;
    errors.push(...validateDomainPrefixedPath(`${p}.key`, e.key));
    if (e.key !== e.key.toLowerCase()) errors.push(invalid(`${p}.key`, e.key, "must be lowercase"));
    const domain = e.key.includes("/") ? e.key.slice(0, e.key.indexOf("/")) : "";
    if (/(^|\.)(kubernetes\.io|k8s\.io)$/.test(domain)) {
      errors.push(invalid(
        `${p}.key`,
        e.key,
        "k8s.io, kubernetes.io and their subdomains are reserved for Kubernetes use",
      ));
    }
    if (seen.has(e.key)) {
      errors.push(duplicate(`${p}.key`, e.key));
      return;
    }
    seen.add(e.key);
    if (e.valueExpression === "") {
      errors.push(required(`${p}.valueExpression`));
      return;
    }
    const program = compile(envs.claims, e.valueExpression, `${p}.valueExpression`, errors);
    if (program) out.extra.push({ key: e.key, program });
  });
}

function validateUserRules(
  a: JwtAuthenticatorConfig,
  path: string,
  envs: Envs,
  out: CompiledJwtAuthenticator,
  errors: FieldError[],
): void {
  const seen = new Set<string>();
  a.userValidationRules.forEach((rule, i) => {
    const p = `${path}[${i}].expression`;
    if (rule.expression === "") {
      errors.push(required(p));
      return;
    }
    if (seen.has(rule.expression)) {
      errors.push(duplicate(p, rule.expression));
      return;
    }
    seen.add(rule.expression);
    const program = compile(envs.user, rule.expression, p, errors, "bool");
    if (program) out.userRules.push({ program, message: rule.message ?? "" });
  });
}
