/**
 * The AuthorizationConfiguration file (`--authorization-config`, `apiserver.config.k8s.io/v1`,
 * `v1beta1` or `v1alpha1`): decoding from YAML or JSON, Kubernetes' defaults (authorizedTTL 5m,
 * unauthorizedTTL 30s) and validation with its field paths and messages: at least one
 * authorizer, known types (only Webhook may repeat), DNS-subdomain names, unique; webhooks with
 * a timeout of at most 30 s, TTLs, review versions, failure policy, connection info and at
 * most 64 compiled match conditions.
 *
 * @module
 */
import { statSync } from "node:fs";
import { isAbsolute } from "node:path";
import { parse } from "yaml";
import { type FieldError, fieldErrorMessage } from "../../../shared/errors/status_error.ts";
import {
  duplicate,
  invalid,
  notSupported,
  required,
} from "../../../shared/api/validation/field_errors.ts";
import { isDNS1123Subdomain } from "../../../shared/api/validation/identifiers.ts";
import { isObject } from "../../../shared/json/is_object.ts";
import { formatDuration, tryParseDurationMs } from "../../../shared/time/duration.ts";
import {
  authorizationMatchEnvironment,
  type CelEnvironment,
  type CelProgram,
} from "../../cel/mod.ts";

/** The authorizer types of the file (Webhook may appear more than once). */
export const AUTHORIZER_TYPES = ["ABAC", "AlwaysAllow", "AlwaysDeny", "Node", "RBAC", "Webhook"];

/** A validated webhook authorizer. */
export interface WebhookAuthorizerConfig {
  authorizedTTLMs: number;
  unauthorizedTTLMs: number;
  timeoutMs: number;
  subjectAccessReviewVersion: "v1" | "v1beta1";
  failurePolicy: "NoOpinion" | "Deny";
  kubeConfigFile: string;
  matchConditions: CelProgram[];
  /** The environment the match conditions were compiled in. */
  matchEnv: CelEnvironment;
}

/** One validated authorizer, in order. */
export interface AuthorizerConfig {
  type: string;
  name: string;
  webhook?: WebhookAuthorizerConfig;
}

type Dict = Record<string, unknown>;
const obj = (v: unknown): Dict => (isObject(v) ? v : {});
const str = (v: unknown): string => (typeof v === "string" ? v : "");

/** Decodes and validates the file's text; every problem is returned. */
export function parseAuthorizationConfiguration(
  text: string,
): { ok: true; authorizers: AuthorizerConfig[] } | { ok: false; errors: string[] } {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (err) {
    return { ok: false, errors: [`error converting YAML to JSON: ${(err as Error).message}`] };
  }
  const d = obj(doc);
  const version = str(d.apiVersion);
  if (
    !/^apiserver\.config\.k8s\.io\/(v1|v1beta1|v1alpha1)$/.test(version) ||
    d.kind !== "AuthorizationConfiguration"
  ) {
    return {
      ok: false,
      errors: [
        `no kind ${JSON.stringify(str(d.kind))} is registered for version ${
          JSON.stringify(version)
        }`,
      ],
    };
  }
  const errors: FieldError[] = [];
  const list = Array.isArray(d.authorizers) ? d.authorizers : [];
  if (list.length === 0) {
    errors.push(required("authorizers", "at least one authorization mode must be defined"));
  }
  const authorizers: AuthorizerConfig[] = [];
  const types = new Set<string>(), names = new Set<string>();
  list.forEach((raw, i) => {
    const a = validateAuthorizer(obj(raw), `authorizers[${i}]`, types, names, errors);
    if (a) authorizers.push(a);
  });
  if (errors.length) return { ok: false, errors: errors.map(fieldErrorMessage) };
  return { ok: true, authorizers };
}

function validateAuthorizer(
  a: Dict,
  path: string,
  types: Set<string>,
  names: Set<string>,
  errors: FieldError[],
): AuthorizerConfig | undefined {
  const type = str(a.type), name = str(a.name);
  if (type === "") {
    errors.push(required(`${path}.type`));
    return undefined;
  }
  if (!AUTHORIZER_TYPES.includes(type)) {
    errors.push(notSupported(`${path}.type`, type, AUTHORIZER_TYPES));
    return undefined;
  }
  if (types.has(type) && type !== "Webhook") {
    errors.push(duplicate(`${path}.type`, type));
    return undefined;
  }
  types.add(type);
  if (name === "") errors.push(required(`${path}.name`));
  else if (names.has(name)) errors.push(duplicate(`${path}.name`, name));
  else {
    const errs = isDNS1123Subdomain(name);
    if (errs.length) {
      errors.push(invalid(`${path}.name`, name, `authorizer name is invalid: ${errs.join(", ")}`));
    }
  }
  names.add(name);
  if (type !== "Webhook") {
    if (a.webhook !== undefined && a.webhook !== null) {
      errors.push(
        invalid(`${path}.webhook`, "non-null", "may only be specified when type=Webhook"),
      );
    }
    return { type, name };
  }
  if (!isObject(a.webhook)) {
    errors.push(required(`${path}.webhook`, "required when type=Webhook"));
    return undefined;
  }
  return { type, name, webhook: validateWebhook(a.webhook, `${path}.webhook`, errors) };
}

/**
 * A duration field: zero or absent takes `fallback` (kube's defaults) or is required; a
 * negative one breaks `rule`.
 */
function duration(
  v: unknown,
  path: string,
  fallback: number | undefined,
  errors: FieldError[],
  rule = "must be > 0s",
): number {
  const text = typeof v === "string" ? v : v === undefined || v === null ? "" : String(v);
  const ms = text === "" ? 0 : tryParseDurationMs(text);
  if (ms === undefined) {
    errors.push(invalid(path, v, `time: invalid duration ${JSON.stringify(text)}`));
    return 0;
  }
  if (ms === 0) {
    if (fallback === undefined) errors.push(required(path));
    return fallback ?? 0;
  }
  if (ms < 0) errors.push(invalid(path, formatDuration(ms), rule));
  return ms;
}

function validateWebhook(w: Dict, path: string, errors: FieldError[]): WebhookAuthorizerConfig {
  const timeoutRule = "must be > 0s and <= 30s";
  const timeoutMs = duration(w.timeout, `${path}.timeout`, undefined, errors, timeoutRule);
  if (timeoutMs > 30_000) {
    errors.push(invalid(`${path}.timeout`, formatDuration(timeoutMs), timeoutRule));
  }
  const out: WebhookAuthorizerConfig = {
    authorizedTTLMs: duration(w.authorizedTTL, `${path}.authorizedTTL`, 300_000, errors),
    unauthorizedTTLMs: duration(w.unauthorizedTTL, `${path}.unauthorizedTTL`, 30_000, errors),
    timeoutMs,
    subjectAccessReviewVersion: w.subjectAccessReviewVersion === "v1" ? "v1" : "v1beta1",
    failurePolicy: w.failurePolicy === "Deny" ? "Deny" : "NoOpinion",
    kubeConfigFile: "",
    matchConditions: [],
    matchEnv: authorizationMatchEnvironment(),
  };
  const sar = str(w.subjectAccessReviewVersion);
  if (sar === "") errors.push(required(`${path}.subjectAccessReviewVersion`));
  else if (sar !== "v1" && sar !== "v1beta1") {
    errors.push(notSupported(`${path}.subjectAccessReviewVersion`, sar, ["v1", "v1beta1"]));
  }
  const conditions = Array.isArray(w.matchConditions) ? w.matchConditions : [];
  const mcv = str(w.matchConditionSubjectAccessReviewVersion);
  if (mcv === "" && conditions.length > 0) {
    errors.push(required(
      `${path}.matchConditionSubjectAccessReviewVersion`,
      "required if match conditions are specified",
    ));
  } else if (mcv !== "" && mcv !== "v1") {
    errors.push(notSupported(`${path}.matchConditionSubjectAccessReviewVersion`, mcv, ["v1"]));
  }
  const fp = str(w.failurePolicy);
  if (fp === "") errors.push(required(`${path}.failurePolicy`));
  else if (fp !== "NoOpinion" && fp !== "Deny") {
    errors.push(notSupported(`${path}.failurePolicy`, fp, ["NoOpinion", "Deny"]));
  }
  out.kubeConfigFile = connectionInfo(obj(w.connectionInfo), `${path}.connectionInfo`, errors);
  out.matchConditions = matchConditions(out.matchEnv, conditions, path, errors);
  return out;
}

function connectionInfo(c: Dict, path: string, errors: FieldError[]): string {
  const type = str(c.type), file = str(c.kubeConfigFile);
  if (type === "") errors.push(required(`${path}.type`));
  else if (type === "InClusterConfig") {
    errors.push(
      invalid(`${path}.type`, type, "InClusterConfig is not supported on the API server itself"),
    );
  } else if (type !== "KubeConfigFile") {
    errors.push(notSupported(`${path}.type`, type, ["InClusterConfig", "KubeConfigFile"]));
  } else if (file === "") errors.push(required(`${path}.kubeConfigFile`));
  else if (!isAbsolute(file)) {
    errors.push(invalid(`${path}.kubeConfigFile`, file, "must be an absolute path"));
  } else {
    try {
      if (!statSync(file).isFile()) {
        errors.push(invalid(`${path}.kubeConfigFile`, file, "must be a regular file"));
      }
    } catch (err) {
      errors.push(
        invalid(`${path}.kubeConfigFile`, file, `error loading file: ${(err as Error).message}`),
      );
    }
  }
  return file;
}

function matchConditions(
  env: CelEnvironment,
  list: unknown[],
  path: string,
  errors: FieldError[],
): CelProgram[] {
  if (list.length > 64) {
    errors.push({
      type: "FieldValueTooMany",
      field: `${path}.matchConditions`,
      detail: `${list.length}: must have at most 64 items`,
    });
    return [];
  }
  const seen = new Set<string>(), out: CelProgram[] = [];
  list.forEach((raw, i) => {
    const p = `${path}.matchConditions[${i}].expression`;
    const expression = str(obj(raw).expression);
    if (expression.trim() === "") {
      errors.push(required(p));
      return;
    }
    if (seen.has(expression)) {
      errors.push(duplicate(p, expression));
      return;
    }
    seen.add(expression);
    const c = env.compile(expression);
    if (!c.ok) {
      const issues = c.errors.map((e) => `ERROR: ${e.detail}`).join("\n");
      errors.push(invalid(p, expression, `compilation failed: ${issues}`));
    } else if (c.program.outputType !== "bool" && c.program.outputType !== "dyn") {
      errors.push(invalid(p, expression, "must evaluate to bool"));
    } else out.push(c.program);
  });
  return out;
}
