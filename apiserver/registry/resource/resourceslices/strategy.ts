/**
 * ResourceSlice (resource.k8s.io/v1beta1, kube 1.32's storage version; off by default): the
 * devices one driver publishes for a pool, on a node, some nodes or all. Validation, field
 * selectors and columns as kube's.
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import {
  duplicate,
  invalid,
  required,
  tooLong,
} from "../../../../shared/api/validation/field_errors.ts";
import {
  isDNS1123Label,
  isDNS1123Subdomain,
} from "../../../../shared/api/validation/identifiers.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import type { KindDef, TableColumns } from "../../generic/kind.ts";
import {
  AGE_COLUMN,
  ageOf,
  column,
  listOf,
  NAME_COLUMN,
  objectOf,
} from "../../generic/table_columns.ts";
import { validateCSIDriverName } from "../../storage/storage_validation.ts";
import { eachOf, named, str, validateQualifiedDeviceName } from "../device_validation.ts";
import { immutable } from "../resourceclaims/immutable.ts";

const MAX_DEVICES = 128;
const MAX_ATTRIBUTES_AND_CAPACITIES = 32;
const MAX_ATTRIBUTE_VALUE = 64;

/** ResourceSlice: Name, Node, Driver, Pool, Age. */
const COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    column("Node", "string", "The node providing the resources, if any."),
    column("Driver", "string", "The driver providing the resources."),
    column("Pool", "string", "The pool the resources belong to."),
    AGE_COLUMN,
  ],
  cells(o, now) {
    const spec = objectOf(o.spec);
    return [
      o.metadata?.name ?? "",
      str(spec.nodeName),
      str(spec.driver),
      str(objectOf(spec.pool).name),
      ageOf(o, now),
    ];
  },
};

/** validatePoolName and the pool's counters. */
function validatePool(field: string, pool: Record<string, unknown>): FieldError[] {
  const name = str(pool.name), errs: FieldError[] = [];
  if (name === "") errs.push(required(`${field}.name`));
  else {
    if (name.length > 253) {
      errs.push(tooLong(`${field}.name`, "", "may not be more than 253 bytes"));
    }
    for (const part of name.split("/")) {
      errs.push(...isDNS1123Subdomain(part).map((m) => invalid(`${field}.name`, part, m)));
    }
  }
  const count = typeof pool.resourceSliceCount === "number" ? pool.resourceSliceCount : 0;
  if (count <= 0) {
    errs.push(invalid(`${field}.resourceSliceCount`, count, "must be greater than zero"));
  }
  const generation = typeof pool.generation === "number" ? pool.generation : 0;
  if (generation < 0) {
    errs.push(invalid(`${field}.generation`, generation, "must be greater than or equal to zero"));
  }
  return errs;
}

/** validateDeviceAttribute: exactly one value, strings and versions of at most 64 bytes. */
function validateAttribute(field: string, a: Record<string, unknown>): FieldError[] {
  const set = ["int", "bool", "string", "version"].filter((k) =>
    a[k] !== undefined && a[k] !== null
  );
  if (set.length !== 1) return [invalid(field, a, "exactly one value must be specified")];
  for (const k of ["string", "version"]) {
    const v = str(a[k]);
    if (v.length > MAX_ATTRIBUTE_VALUE) {
      return [tooLong(`${field}.${k}`, "", `may not be more than ${MAX_ATTRIBUTE_VALUE} bytes`)];
    }
  }
  return [];
}

/** validateDevice: a DNS label name and a basic device. */
function validateDevice(f: string, d: Record<string, unknown>): FieldError[] {
  const errs = named(`${f}.name`, d.name, isDNS1123Label);
  if (!isObject(d.basic)) return [...errs, required(`${f}.basic`)];
  const attributes = objectOf(d.basic.attributes), capacity = objectOf(d.basic.capacity);
  const total = Object.keys(attributes).length + Object.keys(capacity).length;
  if (total > MAX_ATTRIBUTES_AND_CAPACITIES) {
    errs.push(
      invalid(
        `${f}.basic`,
        total,
        `the total number of attributes and capacities must not exceed ${MAX_ATTRIBUTES_AND_CAPACITIES}`,
      ),
    );
  }
  for (const [k, v] of Object.entries(attributes)) {
    errs.push(...validateQualifiedDeviceName(`${f}.basic.attributes[${k}]`, k));
    errs.push(...validateAttribute(`${f}.basic.attributes[${k}]`, objectOf(v)));
  }
  for (const k of Object.keys(capacity)) {
    errs.push(...validateQualifiedDeviceName(`${f}.basic.capacity[${k}]`, k));
  }
  return errs;
}

/** The node selection: exactly one of nodeName, nodeSelector and allNodes. */
function validateNodeSelection(spec: Record<string, unknown>): FieldError[] {
  const set: string[] = [], errs: FieldError[] = [];
  if (str(spec.nodeName) !== "") {
    set.push("`nodeName`");
    errs.push(
      ...isDNS1123Subdomain(str(spec.nodeName)).map((m) =>
        invalid("spec.nodeName", spec.nodeName, m)
      ),
    );
  }
  if (isObject(spec.nodeSelector)) {
    set.push("`nodeSelector`");
    const terms = listOf(spec.nodeSelector.nodeSelectorTerms);
    if (terms.length !== 1) {
      errs.push(
        invalid(
          "spec.nodeSelector.nodeSelectorTerms",
          terms,
          "must have exactly one node selector term",
        ),
      );
    }
  }
  if (spec.allNodes === true) set.push("`allNodes`");
  const rule = "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required";
  if (set.length === 0) errs.push(required("spec", rule));
  else if (set.length > 1) {
    errs.push(invalid("spec", `{${set.join(", ")}}`, `${rule}, but multiple fields are set`));
  }
  return errs;
}

/** validateResourceSliceSpec; with `old`, the driver, pool name and node name never change. */
function validateSlice(o: KubeObject, old?: KubeObject): FieldError[] {
  const spec = objectOf(o.spec), errs = validateCSIDriverName("spec.driver", spec.driver);
  errs.push(...validatePool("spec.pool", objectOf(spec.pool)));
  if (old) {
    const was = objectOf(old.spec);
    errs.push(...immutable("spec.pool.name", objectOf(spec.pool).name, objectOf(was.pool).name));
    errs.push(...immutable("spec.driver", spec.driver, was.driver));
    errs.push(...immutable("spec.nodeName", spec.nodeName ?? "", was.nodeName ?? ""));
  }
  errs.push(...validateNodeSelection(spec));
  const names = new Set<string>();
  errs.push(...eachOf("spec.devices", spec.devices, (f, d) => {
    const out = validateDevice(f, d), name = str(d.name);
    if (name !== "" && names.has(name)) out.push(duplicate(`${f}.name`, name));
    names.add(name);
    return out;
  }, MAX_DEVICES));
  return errs;
}

/** The ResourceSlice kind. */
export const resourceSliceKind: KindDef = {
  group: "resource.k8s.io",
  version: "v1beta1",
  kind: "ResourceSlice",
  plural: "resourceslices",
  singular: "resourceslice",
  namespaced: false,
  strategy: {
    tableColumns: COLUMNS,
    validate: (o) => validateSlice(o),
    validateUpdate: (o, old) => validateSlice(o, old),
    selectableFields: (o) => ({
      "spec.nodeName": str(objectOf(o.spec).nodeName),
      "spec.driver": str(objectOf(o.spec).driver),
    }),
    selectableFieldNames: ["spec.nodeName", "spec.driver"],
  },
};
