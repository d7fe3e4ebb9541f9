/**
 * The validation of a CustomResourceDefinition as apiextensions-apiserver does it
 * (pkg/apis/apiextensions/validation/validation.go, Kubernetes 1.32), on the internal form kube
 * converts v1 to: per-version schemas, subresources, printer columns and selectable fields that
 * are identical in every version are validated once at the top level (`spec.validation`,
 * `spec.subresources`, `spec.additionalPrinterColumns`), and `spec.version` is the first
 * version's name. Each schema is checked by the structural schema engine (validateCrdSchema).
 *
 * @module
 */
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import type { JSONSchemaProps } from "../../../../shared/api/apiextensions/v1/types.ts";
import { invalid, notSupported, required } from "../../../../shared/api/validation/field_errors.ts";
import {
  isDNS1035Label,
  isDNS1123Subdomain,
} from "../../../../shared/api/validation/identifiers.ts";
import { deepEqual } from "../../../../shared/json/deep_equal.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import { validateCrdSchema } from "../schema/custom_resource_schema.ts";
import {
  hasRecognizedReviewVersionOrEmpty,
  validateColumn,
  validateConversion,
  validateNames,
  validateStoredVersions,
  validateSubresources,
} from "./crd_parts_validation.ts";
import { validateSelectableFields } from "./selectable_fields.ts";
import { validateApiApproval, validateDeprecationWarning } from "./crd_meta_validation.ts";

type Obj = Record<string, unknown>;

/** What a create or an update relaxes (kube's validationOptions). */
interface Options {
  requireRecognizedReviewVersion: boolean;
  requireOpenAPISchema: boolean;
  /** The old CRD's spec, on update (schemas before the change). */
  oldSpec?: Obj;
}

/** A version as kube validates it, with the fields moved to the top level cleared. */
interface InternalVersion {
  raw: Obj;
  schema?: JSONSchemaProps;
  subresources?: Obj;
  columns: unknown[];
  selectableFields: unknown[];
}

/** The internal form's view of spec.versions and the top-level fields. */
interface InternalSpec {
  versions: InternalVersion[];
  validation?: JSONSchemaProps;
  subresources?: Obj;
  columns: unknown[];
  selectableFields: unknown[];
}

function obj(v: unknown): Obj {
  return isObject(v) ? v : {};
}

function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

function schemaOf(v: Obj): JSONSchemaProps | undefined {
  const s = obj(v.schema).openAPIV3Schema;
  return isObject(s) ? s as JSONSchemaProps : undefined;
}

function listOf(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** Convert_v1_CustomResourceDefinitionSpec_To_apiextensions_CustomResourceDefinitionSpec's moves. */
export function internalSpec(spec: Obj): InternalSpec {
  const raw = listOf(spec.versions).map(obj);
  const first = raw[0] ?? {};
  const same = (pick: (v: Obj) => unknown) => raw.every((v) => deepEqual(pick(v), pick(first)));
  const schemaSame = raw.length > 0 && same((v) => v.schema);
  const subSame = raw.length > 0 && same((v) => v.subresources);
  const colSame = raw.length > 0 && same((v) => listOf(v.additionalPrinterColumns));
  const selSame = raw.length > 0 && same((v) => listOf(v.selectableFields));
  return {
    versions: raw.map((v) => ({
      raw: v,
      schema: schemaSame ? undefined : schemaOf(v),
      subresources: subSame || !isObject(v.subresources) ? undefined : v.subresources,
      columns: colSame ? [] : listOf(v.additionalPrinterColumns),
      selectableFields: selSame ? [] : listOf(v.selectableFields),
    })),
    validation: schemaSame ? schemaOf(first) : undefined,
    subresources: subSame && isObject(first.subresources) ? first.subresources : undefined,
    columns: colSame ? listOf(first.additionalPrinterColumns) : [],
    selectableFields: selSame ? listOf(first.selectableFields) : [],
  };
}

function hasStatus(subresources: Obj | undefined): boolean {
  return subresources !== undefined && subresources.status !== undefined &&
    subresources.status !== null;
}

/** The old schema of version `name` (per-version or top-level alike), for ratcheting. */
function oldSchemaOf(oldSpec: Obj | undefined, name: string): JSONSchemaProps | undefined {
  const v = listOf(oldSpec?.versions).map(obj).find((v) => v.name === name);
  return v ? schemaOf(v) : undefined;
}

/** Every version in the old spec had a schema (kube only then requires schemas). */
function allVersionsHaveSchemas(spec: Obj): boolean {
  return listOf(spec.versions).every((v) => schemaOf(obj(v)) !== undefined);
}

/** The errors of one version (validateCustomResourceDefinitionVersion). */
function validateVersion(
  spec: InternalSpec,
  v: InternalVersion,
  i: number,
  opts: Options,
): FieldError[] {
  const path = `spec.versions[${i}]`;
  const errs: FieldError[] = [];
  const name = str(v.raw.name);
  const dnsErrs = isDNS1035Label(name);
  if (dnsErrs.length > 0) errs.push(invalid(`${path}.name`, name, dnsErrs.join(",")));
  errs.push(...validateDeprecationWarning(v.raw, `${path}.deprecationWarning`));
  const subs = spec.versions.some((x) => x.subresources) ? v.subresources : spec.subresources;
  if (v.schema) {
    errs.push(
      ...validateCrdSchema(v.schema, `${path}.schema.openAPIV3Schema`, {
        oldSchema: oldSchemaOf(opts.oldSpec, name),
        hasStatus: hasStatus(subs),
      }),
    );
  }
  errs.push(...validateSubresources(v.subresources, `${path}.subresources`));
  v.columns.forEach((c, j) =>
    errs.push(...validateColumn(c, `${path}.additionalPrinterColumns[${j}]`))
  );
  errs.push(...validateSelectableFields(v.selectableFields, v.schema, `${path}.selectableFields`));
  return errs;
}

/** spec.group and spec.scope. */
function validateGroupAndScope(spec: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const group = str(spec.group);
  const groupErrs = isDNS1123Subdomain(group);
  if (group === "") errs.push(required("spec.group"));
  else if (groupErrs.length > 0) errs.push(invalid("spec.group", group, groupErrs.join(",")));
  else if (group.split(".").length < 2) {
    errs.push(invalid("spec.group", group, "should be a domain with at least one dot"));
  }
  const scope = str(spec.scope);
  if (scope === "") errs.push(required("spec.scope"));
  else if (scope !== "Cluster" && scope !== "Namespaced") {
    errs.push(notSupported("spec.scope", scope, ["Cluster", "Namespaced"]));
  }
  return errs;
}

/** The versions' flags: schemas present, unique names, one storage version, spec.version. */
function validateVersionSet(spec: Obj, internal: InternalSpec, opts: Options): FieldError[] {
  const errs: FieldError[] = [];
  const versions = listOf(spec.versions);
  if (opts.requireOpenAPISchema && !internal.validation) {
    internal.versions.forEach((v, i) => {
      if (!v.schema) {
        errs.push(required(`spec.versions[${i}].schema.openAPIV3Schema`, "schemas are required"));
      }
    });
  }
  if (schemaHasDefaults(spec) && spec.preserveUnknownFields === true) {
    errs.push(
      invalid(
        "spec.preserveUnknownFields",
        true,
        "must be false in order to use defaults in the schema",
      ),
    );
  }
  internal.versions.forEach((v, i) => errs.push(...validateVersion(internal, v, i, opts)));
  const names = versions.map((v) => str(obj(v).name));
  if (new Set(names).size !== names.length) {
    errs.push(invalid("spec.versions", versions, "must contain unique version names"));
  }
  if (versions.filter((v) => obj(v).storage === true).length !== 1) {
    errs.push(
      invalid("spec.versions", versions, "must have exactly one version marked as storage version"),
    );
  }
  if (names.length > 0 && names[0] !== "") {
    const e = isDNS1035Label(names[0]);
    if (e.length > 0) errs.push(invalid("spec.version", names[0], e.join(",")));
  }
  return errs;
}

function schemaHasDefaults(spec: Obj): boolean {
  return JSON.stringify(spec.versions ?? []).includes('"default":');
}

/** The top-level fields the internal form holds, and conversion. */
function validateTopLevel(spec: Obj, internal: InternalSpec, opts: Options): FieldError[] {
  const errs: FieldError[] = [];
  const names = obj(spec.names);
  for (const n of ["plural", "singular", "kind", "listKind"]) {
    if (str(names[n]) === "") errs.push(required(`spec.names.${n}`));
  }
  errs.push(...validateNames(spec.names, "spec.names"));
  if (internal.validation) {
    const anyStatus = hasStatus(internal.subresources) ||
      internal.versions.some((v) => hasStatus(v.subresources));
    const first = str(obj(listOf(spec.versions)[0]).name);
    errs.push(
      ...validateCrdSchema(internal.validation, "spec.validation.openAPIV3Schema", {
        oldSchema: oldSchemaOf(opts.oldSpec, first),
        hasStatus: anyStatus,
      }),
    );
  }
  errs.push(...validateSubresources(internal.subresources, "spec.subresources"));
  internal.columns.forEach((c, i) =>
    errs.push(...validateColumn(c, `spec.additionalPrinterColumns[${i}]`))
  );
  errs.push(
    ...validateSelectableFields(
      internal.selectableFields,
      internal.validation,
      "spec.selectableFields",
      true,
    ),
  );
  const conversion = obj(spec.conversion);
  if (
    spec.conversion !== undefined && conversion.strategy !== "None" &&
    spec.preserveUnknownFields === true
  ) {
    errs.push(
      invalid(
        "spec.conversion.strategy",
        conversion.strategy,
        "must be None if spec.preserveUnknownFields is true",
      ),
    );
  }
  errs.push(...validateConversion(spec.conversion, opts.requireRecognizedReviewVersion));
  return errs;
}

function validateSpec(spec: Obj, opts: Options): FieldError[] {
  const internal = internalSpec(spec);
  return [
    ...validateGroupAndScope(spec),
    ...validateVersionSet(spec, internal, opts),
    ...validateTopLevel(spec, internal, opts),
  ];
}

/** The checks of create and update alike after the spec: status, stored versions, approval. */
function validateRest(crd: KubeObject, old: KubeObject | undefined): FieldError[] {
  const spec = obj(crd.spec);
  const status = obj(crd.status);
  const errs = [
    ...validateNames(status.acceptedNames, "status.acceptedNames"),
    ...validateStoredVersions(status.storedVersions, listOf(spec.versions)),
    ...validateApiApproval(crd, old),
  ];
  const oldPreserve = old && obj(old.spec).preserveUnknownFields === true;
  if (!oldPreserve && spec.preserveUnknownFields === true) {
    errs.push(
      invalid(
        "spec.preserveUnknownFields",
        true,
        "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead",
      ),
    );
  }
  return errs;
}

/** ValidateCustomResourceDefinition (the name rule beside ObjectMeta's own). */
export function validateCrd(crd: KubeObject): FieldError[] {
  const spec = obj(crd.spec);
  const errs: FieldError[] = [];
  const name = crd.metadata?.name ?? "";
  if (name !== `${str(obj(spec.names).plural)}.${str(spec.group)}`) {
    errs.push(invalid("metadata.name", name, 'must be spec.names.plural+"."+spec.group'));
  }
  errs.push(
    ...validateSpec(spec, { requireRecognizedReviewVersion: true, requireOpenAPISchema: true }),
  );
  errs.push(...validateRest(crd, undefined));
  return errs;
}

/** Whether the CRD's Established condition is True (its names and scope are then fixed). */
export function isEstablished(crd: KubeObject): boolean {
  return listOf(obj(crd.status).conditions).some((c) =>
    obj(c).type === "Established" && obj(c).status === "True"
  );
}

/** ValidateCustomResourceDefinitionUpdate. */
export function validateCrdUpdate(crd: KubeObject, old: KubeObject): FieldError[] {
  const spec = obj(crd.spec);
  const oldSpec = obj(old.spec);
  const errs = validateSpec(spec, {
    requireRecognizedReviewVersion: hasRecognizedReviewVersionOrEmpty(oldSpec.conversion),
    requireOpenAPISchema: allVersionsHaveSchemas(oldSpec),
    oldSpec,
  });
  const immutable = (path: string, a: unknown, b: unknown) => {
    if (!deepEqual(a, b)) errs.push(invalid(path, a, "field is immutable"));
  };
  if (isEstablished(old)) {
    immutable("spec.scope", spec.scope, oldSpec.scope);
    immutable("spec.names.kind", obj(spec.names).kind, obj(oldSpec.names).kind);
  }
  immutable("spec.group", spec.group, oldSpec.group);
  immutable("spec.names.plural", obj(spec.names).plural, obj(oldSpec.names).plural);
  errs.push(...validateRest(crd, old));
  return errs;
}

/** ValidateUpdateCustomResourceDefinitionStatus (ObjectMeta's update rules run beside it). */
export function validateCrdStatusUpdate(crd: KubeObject): FieldError[] {
  return validateNames(obj(crd.status).acceptedNames, "status.acceptedNames");
}
