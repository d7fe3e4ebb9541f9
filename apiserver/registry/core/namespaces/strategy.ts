/** Namespace: cluster scoped, with the `kubernetes` finalizer in spec and a finalize subresource. */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import { invalid } from "../../../../shared/api/validation/field_errors.ts";
import { type KindDef, STATUS_SUBRESOURCE, type TableColumns } from "../../generic/kind.ts";
import {
  AGE_COLUMN,
  ageOf as age,
  column as col,
  NAME_COLUMN,
  objectOf as obj,
} from "../../generic/table_columns.ts";

/** The finalizer the namespace controller removes when the namespace is empty. */
export const NAMESPACE_FINALIZER = "kubernetes";

/** The label the server keeps on every namespace, holding its name. */
export const NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name";

function specFinalizers(obj: KubeObject): string[] {
  const spec = isObject(obj.spec) ? obj.spec : {};
  return Array.isArray(spec.finalizers) ? spec.finalizers as string[] : [];
}

/** Namespace: Name, Status, Age. */
const NAMESPACE_COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    col("Status", "string", "The status of the namespace"),
    AGE_COLUMN,
  ],
  cells: (o, now) => [o.metadata?.name ?? "", String(obj(o.status).phase ?? ""), age(o, now)],
};

/** The Namespace kind. */
export const namespaceKind: KindDef = {
  group: "",
  version: "v1",
  kind: "Namespace",
  plural: "namespaces",
  singular: "namespace",
  shortNames: ["ns"],
  namespaced: false,
  returnDeletedObject: true,
  nameIsLabel: true,
  // As in Kubernetes, namespaces have no deletecollection.
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
  subresources: [
    STATUS_SUBRESOURCE,
    {
      name: "finalize",
      verbs: ["update"],
      update(body, old) {
        const next = structuredClone(old);
        const spec = isObject(body.spec) ? body.spec : {};
        next.spec = {
          ...(isObject(next.spec) ? next.spec : {}),
          finalizers: spec.finalizers ?? [],
        };
        next.metadata.resourceVersion = body.metadata?.resourceVersion;
        return next;
      },
    },
  ],
  strategy: {
    tableColumns: NAMESPACE_COLUMNS,
    prepareForCreate(obj) {
      const spec = isObject(obj.spec) ? obj.spec : {};
      // As in Kubernetes, every new namespace gets the kubernetes finalizer (added to any others).
      if (!Array.isArray(spec.finalizers)) spec.finalizers = [];
      const fins = spec.finalizers as unknown[];
      if (!fins.includes(NAMESPACE_FINALIZER)) fins.push(NAMESPACE_FINALIZER);
      obj.spec = spec;
      obj.status = { phase: "Active" };
    },
    prepareForUpdate(obj, old) {
      // spec.finalizers change only through the finalize subresource.
      obj.spec = { ...(isObject(obj.spec) ? obj.spec : {}), finalizers: specFinalizers(old) };
    },
    validate(obj) {
      // The schema makes the finalizers strings; an empty one is refused here.
      return specFinalizers(obj).flatMap((f, i) =>
        f === "" ? [invalid(`spec.finalizers[${i}]`, f, "must be a non-empty string")] : []
      );
    },
    canonicalize(obj) {
      // The label always names the namespace (also for generated names), as in Kubernetes.
      obj.metadata.labels = { ...obj.metadata.labels, [NAMESPACE_NAME_LABEL]: obj.metadata.name! };
    },
    selectableFields(obj) {
      const status = isObject(obj.status) ? obj.status : {};
      // Kubernetes also keeps the bare `name` field for backward compatibility.
      return { "status.phase": String(status.phase ?? ""), name: obj.metadata.name ?? "" };
    },
    // kube's field label conversion takes status.phase only (and metadata.name).
    selectableFieldNames: ["status.phase"],
    hasPendingFinalizers: (obj) => specFinalizers(obj).length > 0,
    prepareForDeletion(obj) {
      obj.status = { ...(isObject(obj.status) ? obj.status : {}), phase: "Terminating" };
    },
  },
};
