/**
 * MutatingWebhookConfiguration and ValidatingWebhookConfiguration: the v1 defaults
 * (SetDefaults_ValidatingWebhook, SetDefaults_MutatingWebhook, SetDefaults_Rule,
 * SetDefaults_ServiceReference), their validation with Kubernetes' messages, and the Table
 * columns of kubectl's printers.
 *
 * @module
 */
import type { FieldError } from "../../../shared/errors/status_error.ts";
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { deepEqual } from "../../../shared/json/deep_equal.ts";
import { isObject } from "../../../shared/json/is_object.ts";
import {
  duplicate,
  invalid,
  notSupported,
  required,
} from "../../../shared/api/validation/field_errors.ts";
import { isDNS1035Label } from "../../../shared/api/validation/identifiers.ts";
import type { KindDef, TableColumns } from "../generic/kind.ts";
import { AGE_COLUMN, ageOf, column, listOf, NAME_COLUMN } from "../generic/table_columns.ts";
import { AdmissionExpressionCompiler } from "./cel_expressions.ts";
import {
  FAILURE_POLICIES,
  fullyQualifiedName,
  MATCH_POLICIES,
  oneOf,
  stringOf,
  stringsOf,
  validateLabelSelector,
  validateMatchConditions,
  validateRuleWithOperations,
} from "./rules.ts";
import { validateWebhookService, validateWebhookURL } from "./webhook_client.ts";

const NO_SIDE_EFFECTS = ["None", "NoneOnDryRun"];
const ALL_SIDE_EFFECTS = ["None", "NoneOnDryRun", "Some", "Unknown"];
const REVIEW_VERSIONS = ["v1", "v1beta1"];
const REINVOCATION = ["IfNeeded", "Never"];

/** The Table of both kinds: Name, Webhooks, Age. */
const WEBHOOK_COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    column(
      "Webhooks",
      "integer",
      "Webhooks indicates the number of webhooks registered in this configuration",
    ),
    AGE_COLUMN,
  ],
  cells: (o, now) => [o.metadata?.name ?? "", listOf(o.webhooks).length, ageOf(o, now)],
};

/** Sets the v1 defaults of every webhook of `obj`. */
function setDefaults(obj: KubeObject, mutating: boolean): void {
  if (!Array.isArray(obj.webhooks)) return;
  for (const hook of obj.webhooks) {
    if (!isObject(hook)) continue;
    hook.failurePolicy ??= "Fail";
    hook.matchPolicy ??= "Equivalent";
    hook.namespaceSelector ??= {};
    hook.objectSelector ??= {};
    hook.timeoutSeconds ??= 10;
    if (mutating) hook.reinvocationPolicy ??= "Never";
    for (const rule of Array.isArray(hook.rules) ? hook.rules : []) {
      if (isObject(rule)) rule.scope ??= "*";
    }
    const cc = hook.clientConfig;
    if (isObject(cc) && isObject(cc.service)) cc.service.port ??= 443;
  }
}

/** What an update relaxes for webhooks the stored object already had (as Kubernetes does). */
interface WebhookOptions {
  requireNoSideEffects: boolean;
  requireRecognizedVersion: boolean;
  requireUniqueNames: boolean;
  ignoreMatchConditions: boolean;
}

const CREATE_OPTIONS: WebhookOptions = {
  requireNoSideEffects: true,
  requireRecognizedVersion: true,
  requireUniqueNames: true,
  ignoreMatchConditions: false,
};

function validateReviewVersions(field: string, v: unknown, requireKnown: boolean): FieldError[] {
  const versions = stringsOf(v);
  if (versions.length === 0) {
    return [required(field, `must specify one of ${REVIEW_VERSIONS.join(", ")}`)];
  }
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  for (const [i, version] of versions.entries()) {
    if (seen.has(version)) {
      errs.push(invalid(`${field}[${i}]`, version, "duplicate version"));
      continue;
    }
    seen.add(version);
    for (const msg of isDNS1035Label(version)) errs.push(invalid(`${field}[${i}]`, version, msg));
  }
  if (requireKnown && !versions.some((x) => REVIEW_VERSIONS.includes(x))) {
    errs.push(
      invalid(field, versions, `must include at least one of ${REVIEW_VERSIONS.join(", ")}`),
    );
  }
  return errs;
}

function validateClientConfig(field: string, cc: unknown): FieldError[] {
  const c = isObject(cc) ? cc : {};
  const hasURL = typeof c.url === "string", hasService = isObject(c.service);
  if (hasURL === hasService) return [required(field, "exactly one of url or service is required")];
  return hasURL
    ? validateWebhookURL(`${field}.url`, c.url as string)
    : validateWebhookService(`${field}.service`, c.service as Record<string, unknown>);
}

function validateWebhook(
  field: string,
  hook: Record<string, unknown>,
  mutating: boolean,
  opts: WebhookOptions,
  compiler: AdmissionExpressionCompiler,
): FieldError[] {
  const errs = fullyQualifiedName(`${field}.name`, stringOf(hook.name) ?? "");
  for (const [i, rule] of listOf(hook.rules).entries()) {
    errs.push(...validateRuleWithOperations(`${field}.rules[${i}]`, rule));
  }
  errs.push(...oneOf(`${field}.failurePolicy`, hook.failurePolicy, FAILURE_POLICIES));
  errs.push(...oneOf(`${field}.matchPolicy`, hook.matchPolicy, MATCH_POLICIES));
  const sideEffects = opts.requireNoSideEffects ? NO_SIDE_EFFECTS : ALL_SIDE_EFFECTS;
  if (hook.sideEffects === undefined || hook.sideEffects === null) {
    errs.push(required(`${field}.sideEffects`, `must specify one of ${sideEffects.join(", ")}`));
  } else if (!sideEffects.includes(hook.sideEffects as string)) {
    errs.push(notSupported(`${field}.sideEffects`, hook.sideEffects, sideEffects));
  }
  const timeout = hook.timeoutSeconds;
  if (typeof timeout === "number" && (timeout > 30 || timeout < 1)) {
    errs.push(
      invalid(
        `${field}.timeoutSeconds`,
        timeout,
        "the timeout value must be between 1 and 30 seconds",
      ),
    );
  }
  errs.push(...validateLabelSelector(`${field}.namespaceSelector`, hook.namespaceSelector));
  errs.push(...validateLabelSelector(`${field}.objectSelector`, hook.objectSelector));
  if (mutating) {
    errs.push(...oneOf(`${field}.reinvocationPolicy`, hook.reinvocationPolicy, REINVOCATION));
  }
  errs.push(...validateClientConfig(`${field}.clientConfig`, hook.clientConfig));
  if (!opts.ignoreMatchConditions) {
    const scope = { params: false, variables: false, authorizer: true };
    errs.push(
      ...validateMatchConditions(`${field}.matchConditions`, hook.matchConditions, compiler, scope),
    );
  }
  return errs;
}

function validateConfiguration(
  obj: KubeObject,
  mutating: boolean,
  opts: WebhookOptions,
  compiler: AdmissionExpressionCompiler,
): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  for (const [i, hook] of listOf(obj.webhooks).entries()) {
    const f = `webhooks[${i}]`;
    errs.push(...validateWebhook(f, hook, mutating, opts, compiler));
    errs.push(
      ...validateReviewVersions(
        `${f}.admissionReviewVersions`,
        hook.admissionReviewVersions,
        opts.requireRecognizedVersion,
      ),
    );
    const name = stringOf(hook.name) ?? "";
    if (opts.requireUniqueNames && name !== "") {
      if (names.has(name)) errs.push(duplicate(`${f}.name`, name));
      names.add(name);
    }
  }
  return errs;
}

/** The relaxations of an update, from what the stored object `old` already holds. */
function updateOptions(obj: KubeObject, old: KubeObject): WebhookOptions {
  const oldHooks = listOf(old.webhooks), newHooks = listOf(obj.webhooks);
  const names = oldHooks.map((h) => h.name);
  return {
    requireNoSideEffects: oldHooks.every((h) => NO_SIDE_EFFECTS.includes(h.sideEffects as string)),
    requireRecognizedVersion: oldHooks.every((h) => {
      const v = stringsOf(h.admissionReviewVersions);
      return v.length === 0 || v.some((x) => REVIEW_VERSIONS.includes(x));
    }),
    requireUniqueNames: new Set(names).size === names.length,
    ignoreMatchConditions: oldHooks.length === newHooks.length &&
      oldHooks.every((h, i) =>
        deepEqual(h.matchConditions ?? null, newHooks[i].matchConditions ?? null)
      ),
  };
}

/** A webhook configuration kind: mutating or validating. */
export function webhookConfigurationKind(mutating: boolean): KindDef {
  const kind = mutating ? "MutatingWebhookConfiguration" : "ValidatingWebhookConfiguration";
  const compiler = new AdmissionExpressionCompiler();
  return {
    group: "admissionregistration.k8s.io",
    version: "v1",
    kind,
    plural: `${kind.toLowerCase()}s`,
    singular: kind.toLowerCase(),
    namespaced: false,
    categories: ["api-extensions"],
    strategy: {
      tableColumns: WEBHOOK_COLUMNS,
      prepareForCreate: (obj) => setDefaults(obj, mutating),
      prepareForUpdate: (obj) => setDefaults(obj, mutating),
      validate: (obj) => validateConfiguration(obj, mutating, CREATE_OPTIONS, compiler),
      validateUpdate: (obj, old) =>
        validateConfiguration(obj, mutating, updateOptions(obj, old), compiler),
    },
  };
}
