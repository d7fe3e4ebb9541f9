/**
 * The rules of a CustomResourceDefinition's parts, with apiextensions-apiserver's messages
 * (pkg/apis/apiextensions/validation): names, printer columns, subresources, conversion and
 * stored versions. Paths are those of the internal form kube validates (e.g.
 * `spec.conversion.webhookClientConfig`).
 *
 * @module
 */
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import {
  forbidden,
  invalid,
  notSupported,
  required,
} from "../../../../shared/api/validation/field_errors.ts";
import { isDNS1035Label } from "../../../../shared/api/validation/identifiers.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import {
  validateWebhookService,
  validateWebhookURL,
} from "../../admissionregistration/webhook_client.ts";

const PRINTER_COLUMN_TYPES = ["boolean", "date", "integer", "number", "string"];
const PRINTER_COLUMN_FORMATS = [
  "byte",
  "date",
  "date-time",
  "double",
  "float",
  "int32",
  "int64",
  "password",
];
const CONVERSION_REVIEW_VERSIONS = ["v1", "v1beta1"];

function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.map(str) : [];
}

/** A name that must be a DNS-1035 label when set. */
function label(path: string, value: string, prefix = ""): FieldError[] {
  const errs = isDNS1035Label(value);
  return value !== "" && errs.length > 0 ? [invalid(path, value, prefix + errs.join(","))] : [];
}

/** ValidateCustomResourceDefinitionNames: spec.names and status.acceptedNames. */
export function validateNames(names: unknown, path: string): FieldError[] {
  const n = isObject(names) ? names : {};
  const kind = str(n.kind);
  const listKind = str(n.listKind);
  const mixed = "may have mixed case, but should otherwise match: ";
  const errs = [
    ...label(`${path}.plural`, str(n.plural)),
    ...label(`${path}.singular`, str(n.singular)),
  ];
  const kindErrs = isDNS1035Label(kind.toLowerCase());
  if (kind !== "" && kindErrs.length > 0) {
    errs.push(invalid(`${path}.kind`, kind, mixed + kindErrs.join(",")));
  }
  const listErrs = isDNS1035Label(listKind.toLowerCase());
  if (listKind !== "" && listErrs.length > 0) {
    errs.push(invalid(`${path}.listKind`, listKind, mixed + listErrs.join(",")));
  }
  strings(n.shortNames).forEach((s, i) => {
    const e = isDNS1035Label(s);
    if (e.length > 0) errs.push(invalid(`${path}.shortNames[${i}]`, s, e.join(",")));
  });
  if (kind !== "" && kind === listKind) {
    errs.push(invalid(`${path}.listKind`, listKind, "kind and listKind may not be the same"));
  }
  strings(n.categories).forEach((c, i) => {
    const e = isDNS1035Label(c);
    if (e.length > 0) errs.push(invalid(`${path}.categories[${i}]`, c, e.join(",")));
  });
  return errs;
}

/** validateSimpleJSONPath. */
export function validateSimpleJsonPath(s: string, path: string): FieldError[] {
  if (s === "") return [invalid(path, s, "must not be empty")];
  if (s[0] !== ".") return [invalid(path, s, "must be a simple json path starting with .")];
  return [];
}

/** ValidateCustomResourceColumnDefinition. */
export function validateColumn(col: unknown, path: string): FieldError[] {
  const c = isObject(col) ? col : {};
  const errs: FieldError[] = [];
  if (str(c.name) === "") errs.push(required(`${path}.name`));
  const types = `must be one of ${PRINTER_COLUMN_TYPES.join(",")}`;
  const type = str(c.type);
  if (type === "") errs.push(required(`${path}.type`, types));
  else if (!PRINTER_COLUMN_TYPES.includes(type)) errs.push(invalid(`${path}.type`, type, types));
  const format = str(c.format);
  if (format !== "" && !PRINTER_COLUMN_FORMATS.includes(format)) {
    errs.push(
      invalid(`${path}.format`, format, `must be one of ${PRINTER_COLUMN_FORMATS.join(",")}`),
    );
  }
  const jsonPath = str(c.jsonPath);
  if (jsonPath === "") errs.push(required(`${path}.JSONPath`));
  else errs.push(...validateSimpleJsonPath(jsonPath, `${path}.JSONPath`));
  return errs;
}

/** One scale path: set, a simple JSON path, under one of `prefixes`. */
function scalePath(
  value: unknown,
  path: string,
  prefixes: string[],
  detail: string,
  optional = false,
): FieldError[] {
  const s = str(value);
  if (s === "") return optional ? [] : [required(path)];
  const errs = validateSimpleJsonPath(s, path);
  if (errs.length > 0) return errs;
  return prefixes.some((p) => s.startsWith(p)) ? [] : [invalid(path, s, detail)];
}

/** ValidateCustomResourceDefinitionSubresources. */
export function validateSubresources(subresources: unknown, path: string): FieldError[] {
  if (!isObject(subresources) || !isObject(subresources.scale)) return [];
  const s = subresources.scale;
  return [
    ...scalePath(
      s.specReplicasPath,
      `${path}.scale.specReplicasPath`,
      [".spec."],
      "should be a json path under .spec",
    ),
    ...scalePath(
      s.statusReplicasPath,
      `${path}.scale.statusReplicasPath`,
      [".status."],
      "should be a json path under .status",
    ),
    ...scalePath(
      s.labelSelectorPath,
      `${path}.scale.labelSelectorPath`,
      [".spec.", ".status."],
      "should be a json path under either .spec or .status",
      true,
    ),
  ];
}

/** validateConversionReviewVersions. */
function validateReviewVersions(versions: unknown, requireRecognized: boolean): FieldError[] {
  const path = "spec.conversion.conversionReviewVersions";
  const list = strings(versions);
  if (list.length === 0) return [required(path)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let accepted = false;
  list.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(invalid(`${path}[${i}]`, v, "duplicate version"));
      return;
    }
    seen.add(v);
    for (const e of isDNS1035Label(v)) errs.push(invalid(`${path}[${i}]`, v, e));
    if (CONVERSION_REVIEW_VERSIONS.includes(v)) accepted = true;
  });
  if (requireRecognized && !accepted) {
    errs.push(
      invalid(path, list, `must include at least one of ${CONVERSION_REVIEW_VERSIONS.join(", ")}`),
    );
  }
  return errs;
}

/** Whether every listed ConversionReview version is unknown (kube then stops requiring one). */
export function hasRecognizedReviewVersionOrEmpty(conversion: unknown): boolean {
  const c = isObject(conversion) ? conversion : {};
  const versions = strings(isObject(c.webhook) ? c.webhook.conversionReviewVersions : undefined);
  return versions.length === 0 || versions.some((v) => CONVERSION_REVIEW_VERSIONS.includes(v));
}

/** validateCustomResourceConversion (v1's `webhook` is the internal webhookClientConfig). */
export function validateConversion(conversion: unknown, requireRecognized: boolean): FieldError[] {
  if (!isObject(conversion)) return [];
  const path = "spec.conversion";
  const strategy = str(conversion.strategy);
  const webhook = isObject(conversion.webhook) ? conversion.webhook : undefined;
  const cc = webhook && isObject(webhook.clientConfig) ? webhook.clientConfig : undefined;
  const errs: FieldError[] = [];
  if (strategy === "") errs.push(required(`${path}.strategy`));
  else if (strategy !== "None" && strategy !== "Webhook") {
    errs.push(notSupported(`${path}.strategy`, strategy, ["None", "Webhook"]));
  }
  const ccPath = `${path}.webhookClientConfig`;
  if (strategy === "Webhook") {
    if (!cc) errs.push(required(ccPath, "required when strategy is set to Webhook"));
    else if ((cc.url === undefined) === (cc.service === undefined)) {
      errs.push(required(ccPath, "exactly one of url or service is required"));
    } else if (cc.url !== undefined) {
      errs.push(...validateWebhookURL(`${ccPath}.url`, str(cc.url)));
    } else if (isObject(cc.service)) {
      errs.push(...validateWebhookService(`${ccPath}.service`, cc.service));
    }
    errs.push(...validateReviewVersions(webhook?.conversionReviewVersions, requireRecognized));
    return errs;
  }
  if (cc) {
    errs.push(forbidden(ccPath, "should not be set when strategy is not set to Webhook"));
  }
  if (strings(webhook?.conversionReviewVersions).length > 0) {
    errs.push(
      forbidden(
        `${path}.conversionReviewVersions`,
        "should not be set when strategy is not set to Webhook",
      ),
    );
  }
  return errs;
}

/** ValidateCustomResourceDefinitionStoredVersions. */
export function validateStoredVersions(stored: unknown, versions: unknown[]): FieldError[] {
  const path = "status.storedVersions";
  const list = strings(stored);
  if (list.length === 0) return [invalid(path, list, "must have at least one stored version")];
  const errs: FieldError[] = [];
  const remaining = new Map(list.map((v, i) => [v, i]));
  for (const v of versions) {
    const version = isObject(v) ? v : {};
    const name = str(version.name);
    const listed = remaining.has(name);
    if (version.storage === true && !listed) {
      errs.push(invalid(path, list, `must have the storage version ${name}`));
    }
    if (listed) remaining.delete(name);
  }
  for (const [v, i] of remaining) {
    errs.push(invalid(`${path}[${i}]`, v, "must appear in spec.versions"));
  }
  return errs;
}
