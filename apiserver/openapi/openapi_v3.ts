/**
 * buildOpenApiV3: the OpenAPI v3 document of one group version, built from the served kinds and
 * the schema model: every path and operation with `x-kubernetes-action` and
 * `x-kubernetes-group-version-kind`, the write parameters (`dryRun`, `fieldManager`,
 * `fieldValidation`, `force`), and the schemas with their list-type and merge extensions.
 *
 * @module
 */
import type { SchemaModel } from "../../shared/api/schema/model.ts";
import { ALL_VERBS, apiVersionOf, type KindDef, type Verb } from "../registry/generic/kind.ts";
import { type Json, ref, typeToOpenApi } from "./type_to_openapi.ts";
import {
  customResourceDefinitionName,
  customResourceListSchema,
  customResourceSchema,
} from "./custom_resource_openapi.ts";

export { typeToOpenApi };

/** The Kubernetes version the documents describe. */
export const OPENAPI_INFO_VERSION = "v1.32.0";

const META = "io.k8s.apimachinery.pkg.apis.meta.v1";
const OBJECT_MEDIA = [
  "application/json",
  "application/yaml",
  "application/vnd.kubernetes.protobuf",
];
const WATCH_MEDIA = [
  "application/json;stream=watch",
  "application/vnd.kubernetes.protobuf;stream=watch",
];
const PATCH_MEDIA = [
  "application/apply-patch+yaml",
  "application/json-patch+json",
  "application/merge-patch+json",
  "application/strategic-merge-patch+json",
];

function query(name: string, type: string, description: string): Json {
  return { name, in: "query", description, schema: { type, uniqueItems: true } };
}

const P = {
  pretty: query(
    "pretty",
    "string",
    "If 'true', then the output is pretty printed. Defaults to 'false' unless the user-agent indicates a browser or command-line HTTP tool (curl and wget).",
  ),
  dryRun: query(
    "dryRun",
    "string",
    "When present, indicates that modifications should not be persisted. Valid value: All (process the request fully, without persisting it).",
  ),
  fieldManager: query(
    "fieldManager",
    "string",
    "A name associated with the actor or entity that is making these changes (at most 128 characters). Required for apply requests.",
  ),
  fieldValidation: query(
    "fieldValidation",
    "string",
    "How the server handles unknown and duplicate fields in the body: Ignore (drop them silently), Warn (drop them and send a warning for each; the default) or Strict (reject the request with all of them listed).",
  ),
  force: query(
    "force",
    "boolean",
    "Force an apply request, taking over fields owned by other managers. Must be unset for other patch types.",
  ),
  gracePeriodSeconds: query(
    "gracePeriodSeconds",
    "integer",
    "Seconds before the object is deleted; zero means delete immediately.",
  ),
  orphanDependents: query(
    "orphanDependents",
    "boolean",
    "Deprecated: use propagationPolicy. Whether dependents are orphaned.",
  ),
  propagationPolicy: query(
    "propagationPolicy",
    "string",
    "Whether and how garbage collection is performed: Orphan, Background or Foreground.",
  ),
  allowWatchBookmarks: query(
    "allowWatchBookmarks",
    "boolean",
    "Requests watch events of type BOOKMARK.",
  ),
  continue: query("continue", "string", "The continue token of the previous list chunk."),
  fieldSelector: query("fieldSelector", "string", "Restricts the list by their fields."),
  labelSelector: query("labelSelector", "string", "Restricts the list by their labels."),
  limit: query("limit", "integer", "The maximum number of items of a list chunk."),
  resourceVersion: query(
    "resourceVersion",
    "string",
    "Constrains which resource versions a request may be served from.",
  ),
  resourceVersionMatch: query(
    "resourceVersionMatch",
    "string",
    "How resourceVersion applies to list calls: Exact or NotOlderThan.",
  ),
  sendInitialEvents: query(
    "sendInitialEvents",
    "boolean",
    "Sends the current state as synthetic events before changes (with resourceVersionMatch=NotOlderThan).",
  ),
  timeoutSeconds: query("timeoutSeconds", "integer", "Timeout of the list or watch call."),
  watch: query("watch", "boolean", "Watch for changes and return them as a stream of events."),
};

const LIST_PARAMS = [
  P.allowWatchBookmarks,
  P.continue,
  P.fieldSelector,
  P.labelSelector,
  P.limit,
  P.resourceVersion,
  P.resourceVersionMatch,
  P.sendInitialEvents,
  P.timeoutSeconds,
];
const DELETE_PARAMS = [P.dryRun, P.gracePeriodSeconds, P.orphanDependents, P.propagationPolicy];

function pathParam(name: string, description: string): Json {
  return {
    name,
    in: "path",
    description,
    required: true,
    schema: { type: "string", uniqueItems: true },
  };
}

function content(schema: Json, media: readonly string[]): Json {
  return Object.fromEntries(media.map((m) => [m, { schema }]));
}

function responses(codes: Record<string, Json>, media: readonly string[]): Json {
  const out: Json = {};
  for (const [code, schema] of Object.entries(codes)) {
    const description = code === "200" ? "OK" : code === "201" ? "Created" : "Accepted";
    out[code] = { description, content: content(schema, media) };
  }
  out["401"] = { description: "Unauthorized" };
  return out;
}

function camel(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** `CoreV1`, `CoordinationV1`, `RbacAuthorizationV1`. */
function gvTag(group: string, version: string): string {
  const g = group === "" ? "core" : group.replace(/\.k8s\.io$/, "");
  return g.split(/[.-]/).map(camel).join("") + camel(version);
}

/** The OpenAPI definition name of a kind (from the model, else a guess from its group). */
function kindSchemaName(
  model: SchemaModel,
  def: Pick<KindDef, "group" | "version" | "kind">,
): string {
  const t = model.kind(def.group, def.version, def.kind);
  if (t) return t.openApiName;
  const g = def.group === "" ? "core" : def.group.replace(/\.k8s\.io$/, "");
  return `io.k8s.api.${g}.${def.version}.${def.kind}`;
}

/** A group, version and kind, as `x-kubernetes-group-version-kind` names it. */
type Gvk = { group: string; version: string; kind: string };

/** The schemas and paths of a document being built. */
class DocumentParts {
  readonly schemas: Json = {};
  readonly paths: Record<string, Json> = {};
  readonly #model: SchemaModel;
  /** Building the v2 document: custom resource schemas say only what v2 can. */
  readonly v2: boolean;

  constructor(model: SchemaModel, v2 = false) {
    this.#model = model;
    this.v2 = v2;
  }

  /** Adds a custom resource kind's schema and its List's; returns both names. */
  addCustomKind(def: KindDef): { obj: string; list: string } {
    const obj = customResourceDefinitionName(def.group, def.version, def.kind);
    const list = customResourceDefinitionName(def.group, def.version, `${def.kind}List`);
    this.addType("meta.v1.ObjectMeta");
    this.addType("meta.v1.ListMeta");
    this.schemas[obj] ??= customResourceSchema(def, def.customResourceSchema, this.v2);
    this.schemas[list] ??= customResourceListSchema(def);
    return { obj, list };
  }

  /** Adds the schema of a model type and of every type it refers to. */
  addType(name: string): void {
    for (const t of this.#model.closure(name)) {
      this.schemas[t.openApiName] ??= typeToOpenApi(this.#model, t);
    }
  }

  /** Adds the schema of a kind (an open object when the model lacks it); returns its name. */
  addKind(def: Gvk): string {
    const t = this.#model.kind(def.group, def.version, def.kind);
    if (t) this.addType(t.name);
    else {
      this.schemas[kindSchemaName(this.#model, def)] ??= {
        type: "object",
        "x-kubernetes-preserve-unknown-fields": true,
        "x-kubernetes-group-version-kind": [
          { group: def.group, version: def.version, kind: def.kind },
        ],
      };
    }
    return kindSchemaName(this.#model, def);
  }

  /** Whether the model has a kind. */
  hasKind(def: Gvk): boolean {
    return this.#model.kind(def.group, def.version, def.kind) !== undefined;
  }

  /** Adds an operation; the path's parameters are set by its first operation. */
  addOperation(path: string, method: string, op: Json, params: Json[] = []): void {
    this.paths[path] ??= { parameters: [...params, P.pretty] };
    this.paths[path][method] = op;
  }
}

/** Builds the OpenAPI v3 document of `group/version` from the kinds served there. */
export function buildOpenApiV3(
  model: SchemaModel,
  group: string,
  version: string,
  kinds: readonly KindDef[],
  served: ReadonlySet<string>,
  opts: { v2?: boolean } = {},
): Json {
  const parts = new DocumentParts(model, opts.v2);
  for (
    const n of [
      "meta.v1.Status",
      "meta.v1.DeleteOptions",
      "meta.v1.WatchEvent",
      "meta.v1.APIResourceList",
    ]
  ) {
    parts.addType(n);
  }
  parts.schemas[`${META}.Patch`] = {
    type: "object",
    description:
      "The body of a PATCH request: a JSON Patch, a merge patch, a strategic merge patch or an apply configuration.",
  };
  const prefix = group === "" ? `/api/${version}` : `/apis/${group}/${version}`;
  const tag = gvTag(group, version);
  for (const def of kinds) addKindPaths(parts, kindPaths(parts, def, prefix, tag), served);
  parts.paths[`${prefix}/`] = {
    get: {
      tags: [tag],
      description: "get available resources",
      operationId: `get${tag}APIResources`,
      responses: responses({ "200": ref(`${META}.APIResourceList`) }, OBJECT_MEDIA),
    },
  };
  return document(parts);
}

/** The document around the paths and schemas. */
function document(parts: DocumentParts): Json {
  return {
    openapi: "3.0.0",
    info: { title: "Kubernetes", version: OPENAPI_INFO_VERSION },
    paths: parts.paths,
    components: {
      schemas: Object.fromEntries(
        Object.entries(parts.schemas).sort(([a], [b]) => a < b ? -1 : 1),
      ),
      securitySchemes: {
        BearerToken: {
          type: "apiKey",
          description: "Bearer Token authentication",
          name: "authorization",
          in: "header",
        },
      },
    },
    security: [{ BearerToken: [] }],
  };
}

/** What every operation of one kind shares. */
interface KindPaths {
  def: KindDef;
  gvk: Gvk;
  tag: string;
  prefix: string;
  /** The kind's schema name. */
  obj: string;
  /** `Namespaced` or empty, as in operation ids. */
  ns: string;
  /** The namespace path parameter, when namespaced. */
  nsParams: Json[];
  /** The collection path. */
  coll: string;
  /** The object path. */
  item: string;
}

function kindPaths(parts: DocumentParts, def: KindDef, prefix: string, tag: string): KindPaths {
  const coll = def.namespaced
    ? `${prefix}/namespaces/{namespace}/${def.plural}`
    : `${prefix}/${def.plural}`;
  return {
    def,
    gvk: { group: def.group, version: def.version, kind: def.kind },
    tag,
    prefix,
    obj: def.customResourceSchema ? parts.addCustomKind(def).obj : parts.addKind(def),
    ns: def.namespaced ? "Namespaced" : "",
    nsParams: def.namespaced
      ? [pathParam("namespace", "object name and auth scope, such as for teams and projects")]
      : [],
    coll,
    item: `${coll}/{name}`,
  };
}

/** The fields of one operation object. */
interface OperationFields {
  action: string;
  operationId: string;
  description: string;
  params: Json[];
  responses: Json;
  gvk: Gvk;
  extra?: Json;
}

function operation(tag: string, f: OperationFields): Json {
  return {
    tags: [tag],
    description: f.description,
    operationId: f.operationId,
    parameters: f.params,
    responses: f.responses,
    "x-kubernetes-action": f.action,
    "x-kubernetes-group-version-kind": { ...f.gvk },
    ...f.extra,
  };
}

/** One operation of a path, served when its verb is. */
interface OperationSpec {
  verb: Verb;
  method: string;
  action: string;
  /** The operation id's first word (`read`, `replace`, ...). */
  id: string;
  /** The description, from the kind and (for subresources) the subresource. */
  describe(kind: string, sub: string): string;
  params: readonly Json[];
  /** The response schemas by status code, given the object's schema name. */
  codes(obj: string): Record<string, Json>;
  /** The request body, given the object's schema name. */
  body?(obj: string): Json;
}

const WRITE_PARAMS = [P.dryRun, P.fieldManager, P.fieldValidation];
const ok = (obj: string) => ({ "200": ref(obj) });
const okCreated = (obj: string) => ({ "200": ref(obj), "201": ref(obj) });
const okAccepted = (obj: string) => ({ "200": ref(obj), "202": ref(obj) });
const anyOk = (obj: string) => ({ "200": ref(obj), "201": ref(obj), "202": ref(obj) });
const objectBody = (obj: string): Json => ({
  requestBody: { content: { "*/*": { schema: ref(obj) } }, required: true },
});
const patchBody = (types?: readonly string[]): Json => ({
  requestBody: {
    content: content(
      ref(`${META}.Patch`),
      types ? PATCH_MEDIA.filter((m) => types.includes(m)) : PATCH_MEDIA,
    ),
    required: true,
  },
});
const deleteBody = (): Json => ({
  requestBody: { content: { "*/*": { schema: ref(`${META}.DeleteOptions`) } } },
});

const CREATE: OperationSpec = {
  verb: "create",
  method: "post",
  action: "post",
  id: "create",
  describe: (kind) => `create a ${kind}`,
  params: WRITE_PARAMS,
  codes: anyOk,
  body: objectBody,
};
const DELETE_COLLECTION: OperationSpec = {
  verb: "deletecollection",
  method: "delete",
  action: "deletecollection",
  id: "deleteCollection",
  describe: (kind) => `delete collection of ${kind}`,
  params: [...DELETE_PARAMS, ...LIST_PARAMS],
  codes: () => ok(`${META}.Status`),
  body: deleteBody,
};
const READ: OperationSpec = {
  verb: "get",
  method: "get",
  action: "get",
  id: "read",
  describe: (kind) => `read the specified ${kind}`,
  params: [],
  codes: ok,
};
const REPLACE: OperationSpec = {
  verb: "update",
  method: "put",
  action: "put",
  id: "replace",
  describe: (kind) => `replace the specified ${kind}`,
  params: WRITE_PARAMS,
  codes: okCreated,
  body: objectBody,
};
const PATCH: OperationSpec = {
  verb: "patch",
  method: "patch",
  action: "patch",
  id: "patch",
  describe: (kind) => `partially update the specified ${kind}`,
  params: [...WRITE_PARAMS, P.force],
  codes: okCreated,
  body: () => patchBody(),
};
const DELETE: OperationSpec = {
  verb: "delete",
  method: "delete",
  action: "delete",
  id: "delete",
  describe: (kind) => `delete a ${kind}`,
  params: DELETE_PARAMS,
  codes: okAccepted,
  body: deleteBody,
};

/** The collection's operations besides list, in the document's order. */
const COLLECTION_OPERATIONS: readonly OperationSpec[] = [CREATE, DELETE_COLLECTION];

/** The operations of one object, in the document's order. */
const ITEM_OPERATIONS: readonly OperationSpec[] = [READ, REPLACE, PATCH, DELETE];

/** The operations of a subresource, in the document's order. */
const SUBRESOURCE_OPERATIONS: readonly OperationSpec[] = [
  { ...READ, describe: (kind, sub) => `read ${sub} of the specified ${kind}` },
  { ...CREATE, describe: (kind, sub) => `create ${sub} of a ${kind}` },
  { ...REPLACE, describe: (kind, sub) => `replace ${sub} of the specified ${kind}` },
  { ...PATCH, describe: (kind, sub) => `partially update ${sub} of the specified ${kind}` },
];

/** The operation of `spec` on an object of schema `obj`. */
function specOperation(
  k: KindPaths,
  spec: OperationSpec,
  obj: string,
  gvk: Gvk,
  operationId: string,
  sub = "",
): Json {
  return operation(k.tag, {
    action: spec.action,
    operationId,
    description: spec.describe(k.def.kind, sub),
    params: [...spec.params],
    responses: responses(spec.codes(obj), OBJECT_MEDIA),
    gvk,
    extra: spec.method === "patch" ? patchBody(k.def.patchTypes) : spec.body?.(obj),
  });
}

/** Adds the collection, object and subresource paths of one kind. */
function addKindPaths(parts: DocumentParts, k: KindPaths, served: ReadonlySet<string>): void {
  const { def } = k;
  const verbs = new Set((def.verbs ?? ALL_VERBS).filter((v) => served.has(v)));
  const listGvk = { ...def, kind: `${def.kind}List` };
  const list = def.customResourceSchema
    ? parts.addCustomKind(def).list
    : parts.hasKind(listGvk)
    ? parts.addKind(listGvk)
    : undefined;
  if (verbs.has("list") && list) addListOperations(parts, k, list);
  const opId = (spec: OperationSpec) => `${spec.id}${k.tag}${k.ns}${def.kind}`;
  for (const spec of COLLECTION_OPERATIONS) {
    if (!verbs.has(spec.verb)) continue;
    const op = specOperation(k, spec, k.obj, k.gvk, opId(spec));
    parts.addOperation(k.coll, spec.method, op, k.nsParams);
  }
  const itemParams = [pathParam("name", `name of the ${def.kind}`), ...k.nsParams];
  for (const spec of ITEM_OPERATIONS) {
    if (!verbs.has(spec.verb)) continue;
    const op = specOperation(k, spec, k.obj, k.gvk, opId(spec));
    parts.addOperation(k.item, spec.method, op, itemParams);
  }
  for (const sub of def.subresources ?? []) addSubresourcePaths(parts, k, sub, served);
}

/** Lists (and watches) of the collection, and of all namespaces for a namespaced kind. */
function addListOperations(parts: DocumentParts, k: KindPaths, list: string): void {
  const { def, tag } = k;
  const listOp = (params: Json[], operationId: string) =>
    operation(tag, {
      action: "list",
      operationId,
      description: `list or watch objects of kind ${def.kind}`,
      params,
      responses: responses({ "200": ref(list) }, [...OBJECT_MEDIA, ...WATCH_MEDIA]),
      gvk: k.gvk,
    });
  const id = `list${tag}${k.ns}${def.kind}`;
  parts.addOperation(k.coll, "get", listOp([...LIST_PARAMS, P.watch], id), k.nsParams);
  if (def.namespaced) {
    const all = `${k.prefix}/${def.plural}`;
    parts.paths[all] ??= { parameters: [...LIST_PARAMS, P.pretty, P.watch] };
    parts.paths[all].get = listOp([], `list${tag}${def.kind}ForAllNamespaces`);
  }
}

/** The operations of one subresource (`status`, `scale`, `token`, ...). */
function addSubresourcePaths(
  parts: DocumentParts,
  k: KindPaths,
  sub: NonNullable<KindDef["subresources"]>[number],
  served: ReadonlySet<string>,
): void {
  const path = `${k.item}/${sub.name}`;
  const subVerbs = sub.verbs.filter((v: Verb) => served.has(v));
  const subKind = sub.requestKind ?? k.gvk;
  const subObj = sub.requestKind ? parts.addKind(sub.requestKind) : k.obj;
  const suffix = camel(sub.name);
  const pp = [pathParam("name", `name of the ${subKind.kind}`), ...k.nsParams];
  for (const spec of SUBRESOURCE_OPERATIONS) {
    if (!subVerbs.includes(spec.verb)) continue;
    const operationId = `${spec.id}${k.tag}${k.ns}${k.def.kind}${suffix}`;
    const op = specOperation(k, spec, subObj, subKind, operationId, sub.name);
    parts.addOperation(path, spec.method, op, pp);
  }
}

/** The apiVersion paths (`api/v1`, `apis/<group>/<version>`) of the kinds, without duplicates. */
export function groupVersionsOf(
  kinds: readonly KindDef[],
): { group: string; version: string; path: string }[] {
  const seen = new Map<string, { group: string; version: string; path: string }>();
  for (const k of kinds) {
    const path = k.group === "" ? `api/${k.version}` : `apis/${apiVersionOf(k)}`;
    if (!seen.has(path)) seen.set(path, { group: k.group, version: k.version, path });
  }
  return [...seen.values()];
}
