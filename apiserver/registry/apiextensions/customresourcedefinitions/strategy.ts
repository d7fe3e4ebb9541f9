/**
 * CustomResourceDefinition (apiextensions.k8s.io/v1), cluster-scoped, with a status
 * subresource: kube's v1 defaults, apiextensions-apiserver's validation (crd_validation.ts), the
 * status written through `/status` only, and kube's deletion: the first DELETE marks the CRD
 * Terminating and adds the `customresourcecleanup.apiextensions.k8s.io` finalizer, which the
 * cleanup controller removes once the instances are gone. Tables have the default columns (NAME,
 * CREATED AT), as kube's default table convertor prints CRDs.
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import { type KindDef, STATUS_SUBRESOURCE, type SubresourceDef } from "../../generic/kind.ts";
import { validateCrd, validateCrdStatusUpdate, validateCrdUpdate } from "./crd_validation.ts";

/** The finalizer the CRD cleanup controller removes after deleting every instance. */
export const CUSTOM_RESOURCE_CLEANUP_FINALIZER = "customresourcecleanup.apiextensions.k8s.io";

type Obj = Record<string, unknown>;

function objAt(parent: Obj, key: string): Obj {
  if (!isObject(parent[key])) parent[key] = {};
  return parent[key] as Obj;
}

/**
 * SetDefaults_CustomResourceDefinitionSpec and SetDefaults_ServiceReference (port 443), and the
 * zero values v1's plain fields always have.
 */
export function defaultCrdSpec(crd: KubeObject): void {
  const spec = isObject(crd.spec) ? crd.spec : (crd.spec = {});
  const names = objAt(spec, "names");
  const kind = typeof names.kind === "string" ? names.kind : "";
  if (!names.singular) names.singular = kind.toLowerCase();
  if (!names.listKind && kind !== "") names.listKind = `${kind}List`;
  if (!isObject(spec.conversion)) spec.conversion = { strategy: "None" };
  // served and storage are plain bools: Go always has (and writes) them.
  for (const v of Array.isArray(spec.versions) ? spec.versions : []) {
    if (!isObject(v)) continue;
    v.served ??= false;
    v.storage ??= false;
  }
  const webhook = (spec.conversion as Obj).webhook;
  const service = isObject(webhook) && isObject(webhook.clientConfig)
    ? webhook.clientConfig.service
    : undefined;
  if (isObject(service) && (service.port === undefined || service.port === null)) {
    service.port = 443;
  }
}

/** Appends the storage version to status.storedVersions when it is not listed. */
function recordStorageVersion(crd: KubeObject): void {
  const spec = isObject(crd.spec) ? crd.spec : {};
  const versions = Array.isArray(spec.versions) ? spec.versions : [];
  const storage = versions.find((v) => isObject(v) && v.storage === true) as Obj | undefined;
  if (!storage || typeof storage.name !== "string") return;
  const status = isObject(crd.status) ? crd.status : (crd.status = {});
  const stored = Array.isArray(status.storedVersions) ? status.storedVersions : [];
  if (!stored.includes(storage.name)) status.storedVersions = [...stored, storage.name];
}

/** kube's PrepareForCreate: a new CRD's status is empty but for its storage version. */
function prepareForCreate(crd: KubeObject): void {
  defaultCrdSpec(crd);
  crd.status = { acceptedNames: { plural: "", kind: "" } };
  recordStorageVersion(crd);
}

/** Marks a CRD being deleted: the cleanup finalizer and the Terminating condition. */
function prepareForDeletion(crd: KubeObject): void {
  const fins = crd.metadata.finalizers ?? [];
  if (!fins.includes(CUSTOM_RESOURCE_CLEANUP_FINALIZER)) {
    crd.metadata.finalizers = [...fins, CUSTOM_RESOURCE_CLEANUP_FINALIZER];
  }
  const status = isObject(crd.status) ? crd.status : (crd.status = {});
  const conditions = (Array.isArray(status.conditions) ? status.conditions : []) as Obj[];
  const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const terminating: Obj = {
    type: "Terminating",
    status: "True",
    lastTransitionTime: now,
    reason: "InstanceDeletionPending",
    message:
      "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
  };
  const i = conditions.findIndex((c) => isObject(c) && c.type === "Terminating");
  if (i < 0) conditions.push(terminating);
  else {
    const old = conditions[i];
    conditions[i] = {
      ...terminating,
      lastTransitionTime: old.status === "True" && old.lastTransitionTime
        ? old.lastTransitionTime
        : now,
    };
  }
  status.conditions = conditions;
}

/** `/status`: only status changes; acceptedNames are validated. */
const CRD_STATUS_SUBRESOURCE: SubresourceDef = {
  ...STATUS_SUBRESOURCE,
  validateUpdate: (obj) => validateCrdStatusUpdate(obj),
};

/** The CustomResourceDefinition kind. */
export const customResourceDefinitionKind: KindDef = {
  group: "apiextensions.k8s.io",
  version: "v1",
  kind: "CustomResourceDefinition",
  plural: "customresourcedefinitions",
  singular: "customresourcedefinition",
  shortNames: ["crd", "crds"],
  categories: ["api-extensions"],
  namespaced: false,
  subresources: [CRD_STATUS_SUBRESOURCE],
  strategy: {
    prepareForCreate,
    prepareForUpdate(obj) {
      defaultCrdSpec(obj);
      recordStorageVersion(obj);
    },
    validate: validateCrd,
    validateUpdate: validateCrdUpdate,
    // The first DELETE only marks the CRD (kube's CRD REST Delete); the finalizer then holds it.
    hasPendingFinalizers: (obj) => !obj.metadata.deletionTimestamp,
    prepareForDeletion,
  },
};
