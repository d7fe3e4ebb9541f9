/**
 * The AuthenticationConfiguration file (`--authentication-config`,
 * `apiserver.config.k8s.io/v1beta1` or `v1alpha1`): its types and its decoding from YAML or
 * JSON. Decoding is strict, as in Kubernetes: an unknown field or a value of the wrong type is
 * an error. Semantic rules live in validate_authentication_configuration.ts.
 *
 * @module
 */
import { parse } from "yaml";
import { isObject } from "../../../shared/json/is_object.ts";

/** The API group of the API server's configuration files. */
export const APISERVER_CONFIG_GROUP = "apiserver.config.k8s.io";

/** `issuer` of a JWT authenticator. */
export interface JwtIssuer {
  url: string;
  discoveryURL?: string;
  certificateAuthority?: string;
  audiences: string[];
  audienceMatchPolicy?: string;
}

/** A claim and a prefix, or an expression (username and groups). */
export interface PrefixedClaimOrExpression {
  claim?: string;
  /** Absent and `""` differ: a claim needs a prefix, `""` for none. */
  prefix?: string;
  expression?: string;
}

/** A claim or an expression (uid). */
export interface ClaimOrExpression {
  claim?: string;
  expression?: string;
}

/** One `claimMappings.extra[]` entry. */
export interface ExtraMapping {
  key: string;
  valueExpression: string;
}

/** `claimMappings`. */
export interface ClaimMappings {
  username: PrefixedClaimOrExpression;
  groups: PrefixedClaimOrExpression;
  uid: ClaimOrExpression;
  extra: ExtraMapping[];
}

/** One `claimValidationRules[]` entry. */
export interface ClaimValidationRule {
  claim?: string;
  requiredValue?: string;
  expression?: string;
  message?: string;
}

/** One `userValidationRules[]` entry. */
export interface UserValidationRule {
  expression: string;
  message?: string;
}

/** One `jwt[]` authenticator. */
export interface JwtAuthenticatorConfig {
  issuer: JwtIssuer;
  claimValidationRules: ClaimValidationRule[];
  claimMappings: ClaimMappings;
  userValidationRules: UserValidationRule[];
}

/** `anonymous`. */
export interface AnonymousConfig {
  enabled: boolean;
  conditions: { path: string }[];
}

/** The decoded AuthenticationConfiguration. */
export interface AuthenticationConfiguration {
  jwt: JwtAuthenticatorConfig[];
  anonymous?: AnonymousConfig;
}

/** A shape the strict decoder checks: the known fields and their kinds. */
type Shape =
  | "string"
  | "boolean"
  | { list: Shape }
  | { fields: Record<string, Shape> };

const PREFIXED: Shape = { fields: { claim: "string", prefix: "string", expression: "string" } };
const JWT_SHAPE: Shape = {
  fields: {
    issuer: {
      fields: {
        url: "string",
        discoveryURL: "string",
        certificateAuthority: "string",
        audiences: { list: "string" },
        audienceMatchPolicy: "string",
      },
    },
    claimValidationRules: {
      list: {
        fields: {
          claim: "string",
          requiredValue: "string",
          expression: "string",
          message: "string",
        },
      },
    },
    claimMappings: {
      fields: {
        username: PREFIXED,
        groups: PREFIXED,
        uid: { fields: { claim: "string", expression: "string" } },
        extra: { list: { fields: { key: "string", valueExpression: "string" } } },
      },
    },
    userValidationRules: { list: { fields: { expression: "string", message: "string" } } },
  },
};
const CONFIG_SHAPE: Shape = {
  fields: {
    apiVersion: "string",
    kind: "string",
    jwt: { list: JWT_SHAPE },
    anonymous: {
      fields: { enabled: "boolean", conditions: { list: { fields: { path: "string" } } } },
    },
  },
};

/** Appends a strict decoding error for every unknown field or wrongly typed value. */
function checkShape(v: unknown, shape: Shape, path: string, errors: string[]): void {
  if (v === null || v === undefined) return;
  if (shape === "string" || shape === "boolean") {
    const kind = typeof v;
    if (kind !== shape) {
      errors.push(`${path}: expected ${shape}, got ${Array.isArray(v) ? "array" : typeof v}`);
    }
    return;
  }
  if ("list" in shape) {
    if (!Array.isArray(v)) errors.push(`${path}: expected a list`);
    else v.forEach((x, i) => checkShape(x, shape.list, `${path}[${i}]`, errors));
    return;
  }
  if (!isObject(v)) {
    errors.push(`${path || "configuration"}: expected an object`);
    return;
  }
  for (const [k, x] of Object.entries(v)) {
    const sub = shape.fields[k];
    const p = path ? `${path}.${k}` : k;
    if (!sub) errors.push(`strict decoding error: unknown field "${p}"`);
    else checkShape(x, sub, p, errors);
  }
}

type Dict = Record<string, unknown>;
const obj = (v: unknown): Dict => (isObject(v) ? v : {});
const strs = (v: unknown): string[] => (Array.isArray(v) ? v.map((x) => String(x ?? "")) : []);
const opt = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

function prefixed(v: unknown): PrefixedClaimOrExpression {
  const d = obj(v);
  return { claim: opt(d.claim), prefix: opt(d.prefix), expression: opt(d.expression) };
}

function jwtAuthenticator(v: unknown): JwtAuthenticatorConfig {
  const d = obj(v);
  const iss = obj(d.issuer);
  const cm = obj(d.claimMappings);
  const uid = obj(cm.uid);
  return {
    issuer: {
      url: opt(iss.url) ?? "",
      discoveryURL: opt(iss.discoveryURL),
      certificateAuthority: opt(iss.certificateAuthority),
      audiences: strs(iss.audiences),
      audienceMatchPolicy: opt(iss.audienceMatchPolicy),
    },
    claimValidationRules: (Array.isArray(d.claimValidationRules) ? d.claimValidationRules : [])
      .map((r) => {
        const x = obj(r);
        return {
          claim: opt(x.claim),
          requiredValue: opt(x.requiredValue),
          expression: opt(x.expression),
          message: opt(x.message),
        };
      }),
    claimMappings: {
      username: prefixed(cm.username),
      groups: prefixed(cm.groups),
      uid: { claim: opt(uid.claim), expression: opt(uid.expression) },
      extra: (Array.isArray(cm.extra) ? cm.extra : []).map((e) => ({
        key: opt(obj(e).key) ?? "",
        valueExpression: opt(obj(e).valueExpression) ?? "",
      })),
    },
    userValidationRules: (Array.isArray(d.userValidationRules) ? d.userValidationRules : [])
      .map((r) => ({ expression: opt(obj(r).expression) ?? "", message: opt(obj(r).message) })),
  };
}

/** The outcome of decoding: a configuration, or why the file cannot be one. */
export type DecodedAuthenticationConfiguration =
  | { ok: true; config: AuthenticationConfiguration }
  | { ok: false; errors: string[] };

/**
 * Decodes an AuthenticationConfiguration from YAML or JSON text: the apiVersion must be
 * `apiserver.config.k8s.io/v1beta1` or `/v1alpha1` and the kind AuthenticationConfiguration.
 */
export function decodeAuthenticationConfiguration(
  text: string,
): DecodedAuthenticationConfiguration {
  if (text.trim() === "") return { ok: false, errors: ["empty config data"] };
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (err) {
    return { ok: false, errors: [`error converting YAML to JSON: ${(err as Error).message}`] };
  }
  if (!isObject(doc)) return { ok: false, errors: ["the configuration is not an object"] };
  const errors: string[] = [];
  const { apiVersion, kind } = doc;
  if (typeof kind !== "string" || kind === "") errors.push("Object 'Kind' is missing");
  else if (
    apiVersion !== `${APISERVER_CONFIG_GROUP}/v1beta1` &&
    apiVersion !== `${APISERVER_CONFIG_GROUP}/v1alpha1`
  ) {
    errors.push(
      `no kind "${kind}" is registered for version "${String(apiVersion ?? "")}" in scheme`,
    );
  } else if (kind !== "AuthenticationConfiguration") {
    errors.push(`expected AuthenticationConfiguration, got ${kind}`);
  }
  checkShape(doc, CONFIG_SHAPE, "", errors);
  if (errors.length) return { ok: false, errors };
  const config: AuthenticationConfiguration = {
    jwt: (Array.isArray(doc.jwt) ? doc.jwt : []).map(jwtAuthenticator),
  };
  if (doc.anonymous !== undefined && doc.anonymous !== null) {
    const a = obj(doc.anonymous);
    config.anonymous = {
      enabled: a.enabled === true,
      conditions: (Array.isArray(a.conditions) ? a.conditions : []).map((c) => ({
        path: opt(obj(c).path) ?? "",
      })),
    };
  }
  return { ok: true, config };
}
