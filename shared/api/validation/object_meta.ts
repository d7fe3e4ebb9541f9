/**
 * Validation of `metadata` on create and update, as Kubernetes' ValidateObjectMeta and
 * ValidateObjectMetaUpdate do it, returning field errors in Kubernetes' order and wording.
 *
 * @module
 */
import type { ObjectMeta, OwnerReference } from "../meta/v1/types.ts";
import type { FieldError } from "../../errors/status_error.ts";
import { isQualifiedName, isValidLabelValue } from "./identifiers.ts";
import {
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  type NameValidator,
  validateNamespaceName,
} from "./name_validators.ts";
import { forbidden, invalid, required, tooLong, typeInvalid } from "./field_errors.ts";
import { byteLength, goQuote } from "./go_quote.ts";
import { isObject } from "../../json/is_object.ts";

export { generateName } from "./generate_name.ts";

/** Total size limit of all annotation keys and values, in bytes (256 KiB). */
export const TOTAL_ANNOTATION_SIZE_LIMIT_BYTES = 256 * 1024;

/** Options of {@link validateObjectMeta}. */
export interface ObjectMetaValidationOptions {
  /** Whether the kind is namespaced (namespace required) or cluster scoped (forbidden). */
  namespaced: boolean;
  /** The kind's name rule; default DNS-1123 subdomain. */
  nameValidator?: NameValidator;
  /** Shorthand for `nameValidator: nameIsDNSLabel`. */
  nameIsLabel?: boolean;
  /** Field path of the metadata; default `metadata`. */
  path?: string;
}

/**
 * Validates metadata of an object being created (after generateName was applied):
 * name/generateName, namespace presence, generation, labels, annotations, ownerReferences,
 * finalizers and managedFields.
 */
export function validateObjectMeta(
  meta: ObjectMeta,
  opts: ObjectMetaValidationOptions,
): FieldError[] {
  const p = opts.path ?? "metadata";
  const nameFn = opts.nameValidator ?? (opts.nameIsLabel ? nameIsDNSLabel : nameIsDNSSubdomain);
  const errs: FieldError[] = [];
  const generate = typeof meta.generateName === "string" ? meta.generateName : "";
  if (generate.length > 0) {
    for (const msg of nameFn(generate, true)) {
      errs.push(invalid(`${p}.generateName`, generate, msg));
    }
  }
  const name = typeof meta.name === "string" ? meta.name : "";
  if (name.length === 0) {
    errs.push(required(`${p}.name`, "name or generateName is required"));
  } else {
    for (const msg of nameFn(name, false)) errs.push(invalid(`${p}.name`, name, msg));
    // Path-segment names (RBAC, for one) may hold any other character; the store cannot.
    if (name.includes("\0") || !name.isWellFormed()) {
      errs.push(invalid(`${p}.name`, name, "must not contain NUL characters or lone surrogates"));
    }
  }
  const ns = typeof meta.namespace === "string" ? meta.namespace : "";
  if (opts.namespaced) {
    if (ns.length === 0) {
      errs.push(required(`${p}.namespace`));
    } else {
      for (const msg of validateNamespaceName(ns, false)) {
        errs.push(invalid(`${p}.namespace`, ns, msg));
      }
    }
  } else if (ns.length !== 0) {
    errs.push(forbidden(`${p}.namespace`, "not allowed on this type"));
  }
  if (typeof meta.generation === "number" && meta.generation < 0) {
    errs.push(invalid(`${p}.generation`, meta.generation, "must be greater than or equal to 0"));
  }
  errs.push(...validateLabels(meta.labels, `${p}.labels`));
  errs.push(...validateAnnotations(meta.annotations, `${p}.annotations`));
  errs.push(...validateOwnerReferences(meta.ownerReferences, `${p}.ownerReferences`));
  errs.push(...validateFinalizers(meta.finalizers, `${p}.finalizers`));
  errs.push(...validateManagedFields(meta.managedFields, `${p}.managedFields`));
  return errs;
}

/** Validates label keys (qualified names) and values; errors carry the whole map's path. */
export function validateLabels(labels: unknown, field = "metadata.labels"): FieldError[] {
  const errs: FieldError[] = [];
  if (!isObject(labels)) return errs;
  for (const [k, v] of Object.entries(labels)) {
    for (const msg of isQualifiedName(k)) errs.push(invalid(field, k, msg));
    if (typeof v !== "string") {
      errs.push(typeInvalid(field, v, "must be a string"));
      continue;
    }
    for (const msg of isValidLabelValue(v)) errs.push(invalid(field, v, msg));
  }
  return errs;
}

/** Validates annotation keys (case-insensitive qualified names) and the 256 KiB total size. */
export function validateAnnotations(
  annotations: unknown,
  field = "metadata.annotations",
): FieldError[] {
  const errs: FieldError[] = [];
  if (!isObject(annotations)) return errs;
  let total = 0;
  for (const [k, v] of Object.entries(annotations)) {
    for (const msg of isQualifiedName(k.toLowerCase())) errs.push(invalid(field, k, msg));
    total += byteLength(k) + (typeof v === "string" ? byteLength(v) : 0);
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT_BYTES) {
    errs.push(
      tooLong(
        field,
        "<value omitted>",
        `may not be more than ${TOTAL_ANNOTATION_SIZE_LIMIT_BYTES} bytes`,
      ),
    );
  }
  return errs;
}

/** Validates finalizer names (qualified names) and the orphan/foregroundDeletion conflict. */
export function validateFinalizers(
  finalizers: unknown,
  field = "metadata.finalizers",
): FieldError[] {
  const errs: FieldError[] = [];
  if (!Array.isArray(finalizers)) return errs;
  let orphan = false;
  let foreground = false;
  for (const f of finalizers) {
    const s = typeof f === "string" ? f : String(f);
    for (const msg of isQualifiedName(s)) errs.push(invalid(field, s, msg));
    if (s === "orphan") orphan = true;
    if (s === "foregroundDeletion") foreground = true;
  }
  if (orphan && foreground) {
    errs.push(
      invalid(field, finalizers, "finalizer orphan and foregroundDeletion cannot be both set"),
    );
  }
  return errs;
}

function versionOf(apiVersion: string): string {
  if (apiVersion === "" || apiVersion === "/") return "";
  const parts = apiVersion.split("/");
  if (parts.length === 1) return parts[0];
  if (parts.length === 2) return parts[1];
  return "";
}

function groupOf(apiVersion: string): string {
  const parts = apiVersion.split("/");
  return parts.length === 2 ? parts[0] : "";
}

/** Validates owner references: apiVersion, kind, name and uid present; at most one controller. */
export function validateOwnerReferences(
  refs: unknown,
  field = "metadata.ownerReferences",
): FieldError[] {
  const errs: FieldError[] = [];
  if (!Array.isArray(refs)) return errs;
  let firstController = "";
  for (const raw of refs) {
    const ref = (isObject(raw) ? raw : {}) as Partial<OwnerReference>;
    const apiVersion = typeof ref.apiVersion === "string" ? ref.apiVersion : "";
    const kind = typeof ref.kind === "string" ? ref.kind : "";
    const name = typeof ref.name === "string" ? ref.name : "";
    const uid = typeof ref.uid === "string" ? ref.uid : "";
    const version = versionOf(apiVersion);
    if (version.length === 0) {
      errs.push(invalid(`${field}.apiVersion`, apiVersion, "version must not be empty"));
    }
    if (kind.length === 0) errs.push(invalid(`${field}.kind`, kind, "kind must not be empty"));
    if (name.length === 0) errs.push(invalid(`${field}.name`, name, "name must not be empty"));
    if (uid.length === 0) errs.push(invalid(`${field}.uid`, uid, "uid must not be empty"));
    if (groupOf(apiVersion) === "" && version === "v1" && kind === "Event") {
      errs.push(invalid(field, raw, "/v1, Kind=Event is disallowed from being an owner"));
    }
    if (ref.controller === true) {
      const current = `${kind}/${name}`;
      if (firstController !== "") {
        errs.push(
          invalid(
            field,
            refs,
            `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`,
          ),
        );
      } else {
        firstController = current;
      }
    }
  }
  return errs;
}

/** Validates managedFields entries: operation `Apply` or `Update`, fieldsType `FieldsV1`. */
export function validateManagedFields(
  entries: unknown,
  field = "metadata.managedFields",
): FieldError[] {
  const errs: FieldError[] = [];
  if (!Array.isArray(entries)) return errs;
  entries.forEach((raw, i) => {
    const e = isObject(raw) ? raw : {};
    const op = e.operation;
    if (op !== "Apply" && op !== "Update") {
      errs.push(invalid(`${field}[${i}].operation`, op ?? "", "must be `Apply` or `Update`"));
    }
    if (
      typeof e.fieldsType === "string" && e.fieldsType.length > 0 && e.fieldsType !== "FieldsV1"
    ) {
      errs.push(invalid(`${field}[${i}].fieldsType`, e.fieldsType, "must be `FieldsV1`"));
    }
  });
  return errs;
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/**
 * Validates metadata of an update against the stored object: no new finalizers while
 * deleting, resourceVersion present, generation not decremented, immutable identity fields,
 * then labels, annotations, ownerReferences and managedFields.
 */
export function validateObjectMetaUpdate(
  meta: ObjectMeta,
  old: ObjectMeta,
  path = "metadata",
): FieldError[] {
  const errs: FieldError[] = [];
  if (old.deletionTimestamp) {
    const before = new Set(old.finalizers ?? []);
    const extra = [...new Set(meta.finalizers ?? [])].filter((f) => !before.has(f)).sort();
    if (extra.length > 0) {
      errs.push(forbidden(
        `${path}.finalizers`,
        `no new finalizers can be added if the object is being deleted, found new finalizers []string{${
          extra.map(goQuote).join(", ")
        }}`,
      ));
    }
  }
  if (!meta.resourceVersion) {
    errs.push(invalid(`${path}.resourceVersion`, "", "must be specified for an update"));
  }
  if ((meta.generation ?? 0) < (old.generation ?? 0)) {
    errs.push(invalid(`${path}.generation`, meta.generation ?? 0, "must not be decremented"));
  }
  const immutable = [
    "name",
    "namespace",
    "uid",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
  ] as const;
  for (const f of immutable) {
    if (!same(meta[f], old[f])) {
      errs.push(invalid(`${path}.${f}`, meta[f] ?? "", "field is immutable"));
    }
  }
  errs.push(...validateLabels(meta.labels, `${path}.labels`));
  errs.push(...validateAnnotations(meta.annotations, `${path}.annotations`));
  errs.push(...validateOwnerReferences(meta.ownerReferences, `${path}.ownerReferences`));
  errs.push(...validateManagedFields(meta.managedFields, `${path}.managedFields`));
  return errs;
}
