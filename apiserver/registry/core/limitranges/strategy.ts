/**
 * LimitRange: per-namespace minimum, maximum and default resources. Defaults as kube's
 * SetDefaults_LimitRangeItem (a Container's default from max, defaultRequest from default);
 * columns Name and Created At as kubectl prints them.
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import { notSupported, required } from "../../../../shared/api/validation/field_errors.ts";
import type { KindDef } from "../../generic/kind.ts";
import { listOf as list, objectOf as obj } from "../../generic/table_columns.ts";
import { validateResourceList } from "../resource_list.ts";

const TYPES = ["Container", "PersistentVolumeClaim", "Pod"];
const LISTS = ["max", "min", "default", "defaultRequest", "maxLimitRequestRatio"];

function defaultLimits(o: KubeObject): void {
  for (const item of list(obj(o.spec).limits)) {
    if (item.type !== "Container") continue;
    const max = obj(item.max), def = isObject(item.default) ? item.default : {};
    for (const [k, q] of Object.entries(max)) def[k] ??= q;
    if (Object.keys(def).length > 0) item.default = def;
    const req = isObject(item.defaultRequest) ? item.defaultRequest : {};
    for (const [k, q] of Object.entries(def)) req[k] ??= q;
    if (Object.keys(req).length > 0) item.defaultRequest = req;
  }
}

function validate(o: KubeObject): FieldError[] {
  if (!isObject(o.spec)) return [required("spec")];
  const limits = o.spec.limits;
  if (!Array.isArray(limits)) return [required("spec.limits")];
  const errs: FieldError[] = [];
  for (const [i, item] of limits.entries()) {
    const f = `spec.limits[${i}]`;
    if (!isObject(item)) continue;
    if (!item.type) errs.push(required(`${f}.type`));
    else if (!TYPES.includes(String(item.type))) {
      errs.push(notSupported(`${f}.type`, item.type, TYPES));
    }
    for (const l of LISTS) errs.push(...validateResourceList(`${f}.${l}`, item[l]));
  }
  return errs;
}

/** The LimitRange kind. */
export const limitRangeKind: KindDef = {
  group: "",
  version: "v1",
  kind: "LimitRange",
  plural: "limitranges",
  singular: "limitrange",
  shortNames: ["limits"],
  namespaced: true,
  strategy: {
    prepareForCreate: defaultLimits,
    prepareForUpdate: defaultLimits,
    validate,
  },
};
