/**
 * From a verified token's claims to a user, as Kubernetes' JWT authenticator does it: the
 * username, groups, uid and extra from claims (with prefixes) or CEL expressions over
 * `claims`, the `email_verified` check for an `email` username claim, required claims,
 * claim validation rules, then user validation rules over `user`. Any failure is a reason
 * (the request is 401); reasons never hold the token.
 *
 * @module
 */
import type { UserInfo } from "../../../shared/api/authentication/v1/user_info.ts";
import type { CelProgram } from "../../cel/mod.ts";
import type {
  CompiledJwtAuthenticator,
  CompiledRule,
} from "./validate_authentication_configuration.ts";

/** The user, or why the claims do not make one. */
export type ClaimMappingResult = { ok: true; user: UserInfo } | { ok: false; reason: string };

class MappingError extends Error {}

type Claims = Record<string, unknown>;

function evaluate(program: CelProgram, vars: Record<string, unknown>, what: string): unknown {
  const r = program.evaluate(vars);
  if (!r.ok) throw new MappingError(`oidc: error evaluating ${what}: ${r.error.message}`);
  return r.value;
}

/** A CEL result as a list of strings: a string, a list of strings or null; empties dropped. */
function stringList(v: unknown, what: string): string[] {
  if (v === null || v === undefined) return [];
  if (typeof v === "string") return v === "" ? [] : [v];
  const items = Array.isArray(v) ? v : v instanceof Set ? [...v] : undefined;
  if (items && items.every((x) => typeof x === "string")) {
    return (items as string[]).filter((s) => s !== "");
  }
  throw new MappingError(
    `oidc: error evaluating ${what}: expression must return a string or a list of strings`,
  );
}

function claimString(claims: Claims, name: string, what: string): string {
  if (!(name in claims)) {
    throw new MappingError(`oidc: parse ${what} ${JSON.stringify(name)}: claim not present`);
  }
  const v = claims[name];
  if (typeof v !== "string") {
    throw new MappingError(`oidc: parse ${what} ${JSON.stringify(name)}: not a string`);
  }
  return v;
}

function username(
  a: CompiledJwtAuthenticator,
  claims: Claims,
  vars: Record<string, unknown>,
): string {
  const m = a.config.claimMappings.username;
  if (a.username) {
    const v = evaluate(a.username, vars, "username claim expression");
    if (typeof v !== "string") {
      throw new MappingError(
        "oidc: error evaluating username claim expression: username claim expression must return a string",
      );
    }
    if (v === "") throw new MappingError("oidc: empty username via CEL expression is not allowed");
    return v;
  }
  const name = claimString(claims, m.claim ?? "", "username claims");
  if (m.claim === "email" && "email_verified" in claims) {
    if (typeof claims.email_verified !== "boolean") {
      throw new MappingError("oidc: parse 'email_verified' claim: not a boolean");
    }
    if (!claims.email_verified) throw new MappingError("oidc: email not verified");
  }
  if (name === "") throw new MappingError("oidc: empty username is not allowed");
  return (m.prefix ?? "") + name;
}

function groups(
  a: CompiledJwtAuthenticator,
  claims: Claims,
  vars: Record<string, unknown>,
): string[] {
  const m = a.config.claimMappings.groups;
  if (m.claim) {
    if (!(m.claim in claims)) return [];
    const v = claims[m.claim];
    const list = typeof v === "string" ? [v] : v;
    if (!Array.isArray(list) || !list.every((x) => typeof x === "string")) {
      throw new MappingError(
        `oidc: parse groups claim ${JSON.stringify(m.claim)}: not a string or a list of strings`,
      );
    }
    return list.map((g) => (m.prefix ?? "") + g);
  }
  if (!a.groups) return [];
  return stringList(evaluate(a.groups, vars, "group claim expression"), "group claim expression");
}

function uid(a: CompiledJwtAuthenticator, claims: Claims, vars: Record<string, unknown>): string {
  const m = a.config.claimMappings.uid;
  if (m.claim) return claimString(claims, m.claim, "uid claim");
  if (!a.uid) return "";
  const v = evaluate(a.uid, vars, "uid claim expression");
  if (typeof v !== "string") {
    throw new MappingError(
      "oidc: error evaluating uid claim expression: uid claim expression must return a string",
    );
  }
  return v;
}

function checkRules(rules: CompiledRule[], vars: Record<string, unknown>, what: string): void {
  for (const rule of rules) {
    const v = evaluate(rule.program, vars, what);
    if (typeof v !== "boolean") {
      throw new MappingError(
        `oidc: error evaluating ${what}: validation expression must return a boolean`,
      );
    }
    if (!v) {
      throw new MappingError(
        `oidc: error evaluating ${what}: validation expression '${rule.program.expression}' failed: ${rule.message}`,
      );
    }
  }
}

function requiredClaims(a: CompiledJwtAuthenticator, claims: Claims): void {
  for (const { claim, value } of a.requiredClaims) {
    if (!(claim in claims)) {
      throw new MappingError(`oidc: required claim ${claim} not present in ID token`);
    }
    const got = claims[claim];
    if (typeof got !== "string") throw new MappingError(`oidc: parse claim ${claim}: not a string`);
    if (got !== value) {
      throw new MappingError(
        `oidc: required claim ${claim} value does not match. Got = ${got}, want = ${value}`,
      );
    }
  }
}

/** Maps verified `claims` to a user with `a`'s mappings and checks its rules. */
export function mapClaims(a: CompiledJwtAuthenticator, claims: Claims): ClaimMappingResult {
  try {
    const vars = a.envs.claims.activation({ claims });
    const user: UserInfo = { username: username(a, claims, vars), groups: groups(a, claims, vars) };
    const id = uid(a, claims, vars);
    if (id) user.uid = id;
    const extra: Record<string, string[]> = {};
    for (const e of a.extra) {
      const what = `extra claim expression: ${e.program.expression}`;
      const values = stringList(evaluate(e.program, vars, what), what);
      if (values.length) extra[e.key] = values;
    }
    if (Object.keys(extra).length) user.extra = extra;
    requiredClaims(a, claims);
    checkRules(a.claimRules, vars, "claim validation expression");
    if (a.userRules.length) {
      const userVars = a.envs.user.activation({
        user: {
          username: user.username,
          uid: user.uid ?? "",
          groups: user.groups,
          extra: user.extra ?? {},
        },
      });
      checkRules(a.userRules, userVars, "user info validation rule");
    }
    return { ok: true, user };
  } catch (err) {
    if (err instanceof MappingError) return { ok: false, reason: err.message };
    throw err;
  }
}
