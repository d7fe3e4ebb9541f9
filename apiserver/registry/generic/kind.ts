/**
 * The declaration of a kind: everything the generic registry needs to serve every verb for it.
 * A kind is declared once, with its strategy (the only per-kind code).
 *
 * @module
 */
import type { FieldError } from "../../../shared/errors/status_error.ts";
import type { DeleteOptions, KubeObject } from "../../../shared/api/meta/v1/types.ts";
import type { UserInfo } from "../../../shared/api/authentication/v1/user_info.ts";
import type { Claims } from "./claims.ts";
import type { JSONSchemaProps } from "../../../shared/api/apiextensions/v1/types.ts";
import type { NameValidator } from "../../../shared/api/validation/name_validators.ts";

/** The API verbs of the spec's Verbs table. */
export type Verb =
  | "get"
  | "list"
  | "watch"
  | "create"
  | "update"
  | "patch"
  | "delete"
  | "deletecollection";

/** All verbs, the default set a kind serves. */
export const ALL_VERBS: readonly Verb[] = [
  "create",
  "delete",
  "deletecollection",
  "get",
  "list",
  "patch",
  "update",
  "watch",
];

/** A PATCH body type, named by its media type (the request's Content-Type). */
export type PatchType =
  | "application/json-patch+json"
  | "application/merge-patch+json"
  | "application/strategic-merge-patch+json"
  | "application/apply-patch+yaml";

/** Every patch type, in kube-apiserver's order: what the built-in kinds accept. */
export const ALL_PATCH_TYPES: readonly PatchType[] = [
  "application/json-patch+json",
  "application/merge-patch+json",
  "application/strategic-merge-patch+json",
  "application/apply-patch+yaml",
];

/**
 * The patch types of a custom resource, as kube-apiserver serves them: no strategic merge
 * patch, which needs the patch strategies of a compiled-in type.
 */
export const CUSTOM_RESOURCE_PATCH_TYPES: readonly PatchType[] = [
  "application/json-patch+json",
  "application/merge-patch+json",
  "application/apply-patch+yaml",
];

/** Per-kind behaviour plugged into the generic store. Every hook is optional but `validate`. */
export interface Strategy {
  /**
   * Sets defaults and clears fields the client may not set, before validation on create; `user`
   * is the requesting user, when the request has one (CertificateSigningRequest records it).
   */
  prepareForCreate?(obj: KubeObject, user?: UserInfo): void;
  /** Same for update; `old` is the stored object. */
  prepareForUpdate?(obj: KubeObject, old: KubeObject): void;
  /** Validates a new object; returns every field error. */
  validate(obj: KubeObject): FieldError[];
  /** Validates an update; defaults to `validate(obj)`. */
  validateUpdate?(obj: KubeObject, old: KubeObject): FieldError[];
  /** Final normalisation before storing (for example Secret `stringData` into `data`). */
  canonicalize?(obj: KubeObject): void;
  /** Fields a field selector may use, with their values. metadata.name/namespace are implicit. */
  selectableFields?(obj: KubeObject): Record<string, string>;
  /** Names of the per-kind selectable fields (for "field label not supported" errors). */
  selectableFieldNames?: readonly string[];
  /** Old field labels kube still converts to current ones (Pod's `spec.host`). */
  fieldLabelAliases?: Readonly<Record<string, string>>;
  /** The kind's own wording of an unsupported field label (default `field label not supported: <label>`). */
  fieldLabelError?: (label: string) => string;
  /**
   * Graceful deletion: returns the grace period in seconds to wait before removal (the object
   * stays with a deletionTimestamp), or 0/undefined to delete at once.
   */
  gracePeriod?(obj: KubeObject, options: DeleteOptions): number | undefined;
  /**
   * Whether a deleted-but-finalizing object holds more finalizers than metadata.finalizers
   * (Namespace's spec.finalizers).
   */
  hasPendingFinalizers?(obj: KubeObject): boolean;
  /**
   * Why the object called `name` may never be deleted (403), or undefined when it may (the
   * system PriorityClasses).
   */
  deleteForbidden?(name: string): string | undefined;
  /** Called when deletion starts on an object that stays (e.g. Namespace phase Terminating). */
  prepareForDeletion?(obj: KubeObject): void;
  /** The columns of the kind's Table representation; Name and Created At when absent. */
  tableColumns?: TableColumns;
}

/** One column of a Table, as meta.k8s.io/v1 TableColumnDefinition. */
export interface TableColumnDefinition {
  name: string;
  /** OpenAPI type: `string`, `integer`, `number`, `boolean` or `date`. */
  type: string;
  /** OpenAPI format, e.g. `name`. */
  format: string;
  description: string;
  /** 0 for default columns, higher for wide output. */
  priority: number;
}

/** A kind's Table columns: their definitions and the cells of one object's row. */
export interface TableColumns {
  columns: readonly TableColumnDefinition[];
  /** The cells of `obj`'s row, one per column; `now` is the time in ms (for ages). */
  cells(obj: KubeObject, now: number): unknown[];
  /** The order of a list's rows, where the kind's printer sorts them (FlowSchemas). */
  compare?(a: KubeObject, b: KubeObject): number;
}

/** What a custom create (a virtual kind or a subresource like `token`) receives. */
export interface CustomCreateArgs {
  namespace: string;
  /** The parent object's name (subresources); "" for virtual kinds. */
  name: string;
  /** The decoded request body. */
  body: KubeObject;
  user?: UserInfo;
  /** Adds a warning to the response (a `Warning` header). */
  warn?: (message: string) => void;
  dryRun: boolean;
  /** The request's query parameters. */
  query: URLSearchParams;
}

/** A subresource served for a kind. */
export interface SubresourceDef {
  /** Name, e.g. `status`. */
  name: string;
  /** Verbs served on it. */
  verbs: readonly Verb[];
  /** Applies the body to the stored object for an update of this subresource. */
  update?(body: KubeObject, old: KubeObject): KubeObject;
  /**
   * Serves `create` (POST) on the subresource, e.g. serviceaccounts/token. The body's kind
   * is `requestKind`.
   */
  create?(args: CustomCreateArgs): Promise<KubeObject>;
  /**
   * The kind of the body and response of `create` (or, with `view`, of every verb), e.g.
   * `{group, version, kind}`; discovery reports it as the subresource's kind.
   */
  requestKind?: { group: string; version: string; kind: string };
  /**
   * Renders the stored object as `requestKind` (e.g. `scale` as autoscaling/v1 Scale): get
   * answers it, update and patch take and answer it, and `update` applies it to the object.
   */
  view?(obj: KubeObject): KubeObject;
  /**
   * Validates an update through this subresource, in place of the strategy's `validateUpdate`
   * (e.g. `pods/status` and `pods/binding`, which may change what a pod update may not).
   */
  validateUpdate?(obj: KubeObject, old: KubeObject): FieldError[];
  /**
   * Other apiVersions of `requestKind` the body of `create` may name (kube's
   * GroupVersionAcceptor: `pods/eviction` takes policy/v1 and policy/v1beta1 Evictions).
   */
  acceptedApiVersions?: readonly string[];
  /**
   * Served but not available yet (e.g. `services/proxy` before workloads are reachable):
   * every request to it, at any path below it, is 503 with this message.
   */
  unavailable?: string;
}

/** The declaration of one kind. */
export interface KindDef {
  /** API group; "" for the core group. */
  group: string;
  version: string;
  kind: string;
  /** Resource name in URLs, e.g. `configmaps`. */
  plural: string;
  singular: string;
  shortNames?: readonly string[];
  categories?: readonly string[];
  namespaced: boolean;
  /** Verbs on the main resource; defaults to ALL_VERBS. */
  verbs?: readonly Verb[];
  subresources?: readonly SubresourceDef[];
  /**
   * The patch types PATCH accepts (any other is 415 Unsupported Media Type); defaults to
   * ALL_PATCH_TYPES. A custom resource declares CUSTOM_RESOURCE_PATCH_TYPES.
   */
  patchTypes?: readonly PatchType[];
  /**
   * A DELETE that removes the object at once answers the object itself, as kube registries
   * with `ReturnDeletedObject: true` do (Pod, Service, ServiceAccount, Namespace, PV, PVC,
   * PodTemplate, ResourceQuota, StorageClass, custom resources, …); otherwise it answers a
   * Success Status naming the object. An object that stays (finalizers, grace) is always
   * answered.
   */
  returnDeletedObject?: boolean;
  /** PUT to a missing object creates it (Kubernetes allows this for a few kinds). */
  allowCreateOnUpdate?: boolean;
  /** Validates names as DNS-1123 labels (true) or subdomains (false, default). */
  nameIsLabel?: boolean;
  /** The kind's own name rule (e.g. path-segment names of RBAC roles); wins over nameIsLabel. */
  nameValidator?: NameValidator;
  /**
   * A virtual kind is never stored: `create` computes the answer (review APIs such as
   * TokenReview and SubjectAccessReview). Its verbs should be `["create"]`.
   */
  virtual?: { create(args: CustomCreateArgs): Promise<KubeObject> };
  /** A read-only kind computed on every read (verbs get and list), never stored. */
  computed?: {
    /** Every object of the kind now (of a namespaced kind: in `namespace`, "" for all). */
    list(namespace?: string): Promise<KubeObject[]>;
  };
  /** Exclusive values its objects hold, written with them (a Service's ClusterIPs, NodePorts). */
  claims?: Claims;
  /**
   * Served from another kind's storage (autoscaling/v1 HorizontalPodAutoscaler from
   * autoscaling/v2, events.k8s.io/v1 Event from core/v1): every request is converted to and
   * from the stored form. This kind's strategy then only adds the served form's own defaults,
   * validation and Table columns; the stored kind's strategy does the rest.
   */
  servedFrom?: ServedVersion;
  /**
   * The OpenAPI v3 schema of a custom resource's version (its CRD's `openAPIV3Schema`): the
   * OpenAPI documents, explain and server-side apply read it in place of the built-in model.
   */
  customResourceSchema?: JSONSchemaProps;
  /**
   * The version is deprecated: every request to the kind (every verb, subresources, errors
   * too) answers this text in a `Warning` header (a custom resource version's
   * `deprecationWarning`, or kube's default wording).
   */
  deprecationWarning?: string;
  /**
   * Removes from a decoded request body the fields the kind's schema does not declare (custom
   * resources' pruning) and returns their paths (`spec.foo`): `fieldValidation` reports them
   * as it reports a built-in kind's unknown fields.
   */
  pruneUnknownFields?(obj: KubeObject): string[];
  /** Applies defaults to an object read from storage (custom resources' schema defaults). */
  applyReadDefaults?(obj: KubeObject): void;
  /** With `deprecationWarning`: the release that no longer serves the version (`1.25`), for
   * the `k8s.io/removed-release` audit annotation and the deprecated-API metric. */
  removedRelease?: string;
  strategy: Strategy;
}

/**
 * How a kind is served from the store of another (its storage version): the stored kind and
 * the conversions both ways. Both versions share one store, its keys and resourceVersions.
 */
export interface ServedVersion {
  /**
   * The stored kind (its store must be registered first). It may be this kind itself (same
   * group, version and resource): the registry then keeps the stored kind's store privately
   * and serves it through the conversion, so objects written at another version read as this
   * one (a custom resource's storage version after it changed).
   */
  storage: KindDef;
  /**
   * An object in the served form, converted to the stored form (a new object). May answer a
   * Promise (a conversion webhook); a rejection is the request's error (a StatusError as is).
   */
  toStorage(obj: KubeObject): KubeObject | Promise<KubeObject>;
  /**
   * A stored object, converted to the served form (a new object). The stored object carries
   * the apiVersion it was written at, which need not be the stored kind's current one. May
   * answer a Promise.
   */
  fromStorage(obj: KubeObject): KubeObject | Promise<KubeObject>;
  /**
   * Converts many stored objects to the served form in one call, in order (a conversion
   * webhook converts a whole list per ConversionReview): lists, delete-collection answers and
   * watch events use it when present. A converter whose conversions answer Promises provides
   * it: watches of its kind then convert their events per watcher, in batches, outside the
   * watch cache's synchronous fan-out.
   */
  fromStorageList?(objs: KubeObject[]): Promise<KubeObject[]>;
  /**
   * Field selector labels of the served form that name a stored field under another name
   * (`regarding.name` → `involvedObject.name`); metadata.name/namespace are always served.
   * Absent: the stored kind's labels.
   */
  fieldLabels?: Readonly<Record<string, string>>;
}

/** `group/version`, or `version` for the core group. */
export function apiVersionOf(def: Pick<KindDef, "group" | "version">): string {
  return def.group ? `${def.group}/${def.version}` : def.version;
}

/** The status subresource: a PUT replaces `status` only. */
export const STATUS_SUBRESOURCE: SubresourceDef = {
  name: "status",
  verbs: ["get", "patch", "update"],
  update(body, old) {
    const next = structuredClone(old);
    if (body.status === undefined) delete next.status;
    else next.status = body.status;
    next.metadata.resourceVersion = body.metadata?.resourceVersion;
    return next;
  },
};
