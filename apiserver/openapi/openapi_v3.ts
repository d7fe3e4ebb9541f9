/**
 * buildOpenApiV3: the OpenAPI v3 document of one group version, built from the served kinds and
 * the schema model: every path and operation with `x-kubernetes-action` and
 * `x-kubernetes-group-version-kind`, the write parameters (`dryRun`, `fieldManager`,
 * `fieldValidation`, `force`), and the schemas with their list-type and merge extensions.
 *
 * @module
 */
import type { FieldSchema, SchemaModel, TypeSchema } from "../../shared/api/schema/model.ts";
import { ALL_VERBS, apiVersionOf, type KindDef, type Verb } from "../registry/generic/kind.ts";

/** A JSON object of the document. */
type Json = Record<string, unknown>;

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

function ref(name: string): Json {
  return { $ref: `#/components/schemas/${name}` };
}

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

function fieldToOpenApi(model: SchemaModel, f: FieldSchema, top = true): Json {
  const out: Json = {};
  if (top && f.description) out.description = f.description;
  switch (f.type) {
    case "ref": {
      const t = model.type(f.ref!);
      const name = t?.openApiName ?? f.ref!;
      if (!top) return ref(name);
      out.allOf = [ref(name)];
      break;
    }
    case "array":
      out.type = "array";
      out.items = fieldToOpenApi(model, f.items!, false);
      break;
    case "map":
      out.type = "object";
      out.additionalProperties = fieldToOpenApi(model, f.values!, false);
      break;
    case "intOrString":
      out.type = "string";
      out.format = "int-or-string";
      break;
    case "quantity":
      out.type = "string";
      break;
    case "any":
      out["x-kubernetes-preserve-unknown-fields"] = true;
      break;
    default:
      out.type = f.type;
      if (f.format) out.format = f.format;
  }
  if (f.enum) out.enum = [...f.enum];
  if (f.default !== undefined) out.default = f.default;
  if (f.listType) out["x-kubernetes-list-type"] = f.listType;
  if (f.listMapKeys) out["x-kubernetes-list-map-keys"] = [...f.listMapKeys];
  if (f.mapType) out["x-kubernetes-map-type"] = f.mapType;
  if (f.patchStrategy) out["x-kubernetes-patch-strategy"] = f.patchStrategy;
  if (f.patchMergeKey) out["x-kubernetes-patch-merge-key"] = f.patchMergeKey;
  return out;
}

/** The OpenAPI v3 schema of one model type. */
export function typeToOpenApi(model: SchemaModel, t: TypeSchema): Json {
  if (t.scalar) return fieldToOpenApi(model, t.scalar);
  const out: Json = { type: "object" };
  if (t.description) out.description = t.description;
  if (!t.preserveUnknownFields) {
    out.properties = Object.fromEntries(
      Object.entries(t.properties).map(([k, f]) => [k, fieldToOpenApi(model, f)]),
    );
    if (t.required.length > 0) out.required = [...t.required];
  }
  if (t.structType) out["x-kubernetes-map-type"] = t.structType;
  if (t.gvk) out["x-kubernetes-group-version-kind"] = t.gvk.map((g) => ({ ...g }));
  return out;
}

/** Builds the OpenAPI v3 document of `group/version` from the kinds served there. */
export function buildOpenApiV3(
  model: SchemaModel,
  group: string,
  version: string,
  kinds: readonly KindDef[],
  served: ReadonlySet<string>,
): Json {
  const schemas: Json = {};
  const addType = (name: string) => {
    for (const t of model.closure(name)) schemas[t.openApiName] ??= typeToOpenApi(model, t);
  };
  const addKind = (def: Pick<KindDef, "group" | "version" | "kind">) => {
    const t = model.kind(def.group, def.version, def.kind);
    if (t) addType(t.name);
    else {
      schemas[kindSchemaName(model, def)] ??= {
        type: "object",
        "x-kubernetes-preserve-unknown-fields": true,
        "x-kubernetes-group-version-kind": [{ ...def }],
      };
    }
    return kindSchemaName(model, def);
  };
  for (
    const n of [
      "meta.v1.Status",
      "meta.v1.DeleteOptions",
      "meta.v1.WatchEvent",
      "meta.v1.APIResourceList",
    ]
  ) {
    addType(n);
  }
  schemas[`${META}.Patch`] = {
    type: "object",
    description:
      "The body of a PATCH request: a JSON Patch, a merge patch, a strategic merge patch or an apply configuration.",
  };
  const status = `${META}.Status`;
  const prefix = group === "" ? `/api/${version}` : `/apis/${group}/${version}`;
  const tag = gvTag(group, version);
  const paths: Record<string, Json> = {};
  const addOp = (path: string, method: string, op: Json, params: Json[] = []) => {
    paths[path] ??= { parameters: [...params, P.pretty] };
    paths[path][method] = op;
  };
  for (const def of kinds) {
    const verbs = new Set((def.verbs ?? ALL_VERBS).filter((v) => served.has(v)));
    const gvk = { group: def.group, version: def.version, kind: def.kind };
    const obj = addKind(def);
    const list = model.kind(def.group, def.version, `${def.kind}List`)
      ? addKind({ ...def, kind: `${def.kind}List` })
      : undefined;
    const ns = def.namespaced ? "Namespaced" : "";
    const nsParams = def.namespaced
      ? [pathParam("namespace", "object name and auth scope, such as for teams and projects")]
      : [];
    const nameParam = pathParam("name", `name of the ${def.kind}`);
    const coll = def.namespaced
      ? `${prefix}/namespaces/{namespace}/${def.plural}`
      : `${prefix}/${def.plural}`;
    const item = `${coll}/{name}`;
    const op = (
      action: string,
      id: string,
      description: string,
      params: Json[],
      resp: Json,
      extra: Json = {},
      kind = gvk,
    ): Json => ({
      tags: [tag],
      description,
      operationId: `${id}${tag}${ns}${kind.kind}`,
      parameters: params,
      responses: resp,
      "x-kubernetes-action": action,
      "x-kubernetes-group-version-kind": { ...kind },
      ...extra,
    });
    const bodyOf = (schema: string) => ({
      requestBody: { content: { "*/*": { schema: ref(schema) } }, required: true },
    });
    if (verbs.has("list") && list) {
      addOp(
        coll,
        "get",
        op(
          "list",
          "list",
          `list or watch objects of kind ${def.kind}`,
          [...LIST_PARAMS, P.watch],
          responses({ "200": ref(list) }, [...OBJECT_MEDIA, ...WATCH_MEDIA]),
        ),
        nsParams,
      );
      if (def.namespaced) {
        const all = `${prefix}/${def.plural}`;
        paths[all] ??= { parameters: [...LIST_PARAMS, P.pretty, P.watch] };
        paths[all].get = {
          ...op(
            "list",
            "list",
            `list or watch objects of kind ${def.kind}`,
            [],
            responses({ "200": ref(list) }, [...OBJECT_MEDIA, ...WATCH_MEDIA]),
          ),
          operationId: `list${tag}${def.kind}ForAllNamespaces`,
        };
      }
    }
    if (verbs.has("create")) {
      const codes = def.virtual
        ? { "200": ref(obj), "201": ref(obj), "202": ref(obj) }
        : { "200": ref(obj), "201": ref(obj), "202": ref(obj) };
      addOp(
        coll,
        "post",
        op(
          "post",
          "create",
          `create a ${def.kind}`,
          [P.dryRun, P.fieldManager, P.fieldValidation],
          responses(codes, OBJECT_MEDIA),
          bodyOf(obj),
        ),
        nsParams,
      );
    }
    if (verbs.has("deletecollection")) {
      addOp(
        coll,
        "delete",
        op(
          "deletecollection",
          "deleteCollection",
          `delete collection of ${def.kind}`,
          [...DELETE_PARAMS, ...LIST_PARAMS],
          responses({ "200": ref(status) }, OBJECT_MEDIA),
          { requestBody: { content: { "*/*": { schema: ref(`${META}.DeleteOptions`) } } } },
        ),
        nsParams,
      );
    }
    const itemParams = [nameParam, ...nsParams];
    if (verbs.has("get")) {
      addOp(
        item,
        "get",
        op(
          "get",
          "read",
          `read the specified ${def.kind}`,
          [],
          responses({ "200": ref(obj) }, OBJECT_MEDIA),
        ),
        itemParams,
      );
    }
    if (verbs.has("update")) {
      addOp(
        item,
        "put",
        op(
          "put",
          "replace",
          `replace the specified ${def.kind}`,
          [P.dryRun, P.fieldManager, P.fieldValidation],
          responses({ "200": ref(obj), "201": ref(obj) }, OBJECT_MEDIA),
          bodyOf(obj),
        ),
        itemParams,
      );
    }
    if (verbs.has("patch")) {
      addOp(
        item,
        "patch",
        op(
          "patch",
          "patch",
          `partially update the specified ${def.kind}`,
          [P.dryRun, P.fieldManager, P.fieldValidation, P.force],
          responses({ "200": ref(obj), "201": ref(obj) }, OBJECT_MEDIA),
          { requestBody: { content: content(ref(`${META}.Patch`), PATCH_MEDIA), required: true } },
        ),
        itemParams,
      );
    }
    if (verbs.has("delete")) {
      addOp(
        item,
        "delete",
        op(
          "delete",
          "delete",
          `delete a ${def.kind}`,
          DELETE_PARAMS,
          responses({ "200": ref(obj), "202": ref(obj) }, OBJECT_MEDIA),
          { requestBody: { content: { "*/*": { schema: ref(`${META}.DeleteOptions`) } } } },
        ),
        itemParams,
      );
    }
    for (const sub of def.subresources ?? []) {
      const path = `${item}/${sub.name}`;
      const subVerbs = sub.verbs.filter((v: Verb) => served.has(v));
      const subKind = sub.requestKind ?? gvk;
      const subObj = sub.requestKind ? addKind(sub.requestKind) : obj;
      const suffix = camel(sub.name);
      const subOp = (
        action: string,
        id: string,
        desc: string,
        params: Json[],
        resp: Json,
        extra: Json = {},
      ) => ({
        ...op(action, id, desc, params, resp, extra, subKind),
        operationId: `${id}${tag}${ns}${def.kind}${suffix}`,
      });
      const pp = [pathParam("name", `name of the ${subKind.kind}`), ...nsParams];
      if (subVerbs.includes("get")) {
        addOp(
          path,
          "get",
          subOp(
            "get",
            "read",
            `read ${sub.name} of the specified ${def.kind}`,
            [],
            responses({ "200": ref(subObj) }, OBJECT_MEDIA),
          ),
          pp,
        );
      }
      if (subVerbs.includes("create")) {
        addOp(
          path,
          "post",
          subOp(
            "post",
            "create",
            `create ${sub.name} of a ${def.kind}`,
            [P.dryRun, P.fieldManager, P.fieldValidation],
            responses({ "200": ref(subObj), "201": ref(subObj), "202": ref(subObj) }, OBJECT_MEDIA),
            bodyOf(subObj),
          ),
          pp,
        );
      }
      if (subVerbs.includes("update")) {
        addOp(
          path,
          "put",
          subOp(
            "put",
            "replace",
            `replace ${sub.name} of the specified ${def.kind}`,
            [P.dryRun, P.fieldManager, P.fieldValidation],
            responses({ "200": ref(subObj), "201": ref(subObj) }, OBJECT_MEDIA),
            bodyOf(subObj),
          ),
          pp,
        );
      }
      if (subVerbs.includes("patch")) {
        addOp(
          path,
          "patch",
          subOp(
            "patch",
            "patch",
            `partially update ${sub.name} of the specified ${def.kind}`,
            [P.dryRun, P.fieldManager, P.fieldValidation, P.force],
            responses({ "200": ref(subObj), "201": ref(subObj) }, OBJECT_MEDIA),
            {
              requestBody: { content: content(ref(`${META}.Patch`), PATCH_MEDIA), required: true },
            },
          ),
          pp,
        );
      }
    }
  }
  paths[`${prefix}/`] = {
    get: {
      tags: [tag],
      description: "get available resources",
      operationId: `get${tag}APIResources`,
      responses: responses({ "200": ref(`${META}.APIResourceList`) }, OBJECT_MEDIA),
    },
  };
  return {
    openapi: "3.0.0",
    info: { title: "Kubernetes", version: OPENAPI_INFO_VERSION },
    paths,
    components: {
      schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a < b ? -1 : 1)),
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
