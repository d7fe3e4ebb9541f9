/**
 * buildOpenApiV2: the Swagger 2.0 document (`/openapi/v2`) of every served kind, made from the
 * OpenAPI v3 documents of the served group versions (so both come from one schema model and one
 * list of paths): `$ref`s point into `definitions`, a reference with a description is a `$ref`
 * beside the description (as kube-openapi writes it), parameters carry their type themselves,
 * request bodies become `body` parameters, and response media types become `produces`.
 *
 * @module
 */
import type { SchemaModel } from "../../shared/api/schema/model.ts";
import type { KindDef } from "../registry/generic/kind.ts";
import { buildOpenApiV3, groupVersionsOf, OPENAPI_INFO_VERSION } from "./openapi_v3.ts";
import { type Json, typeToOpenApi } from "./type_to_openapi.ts";

const V3_REF = "#/components/schemas/";
const META = "io.k8s.apimachinery.pkg.apis.meta.v1";
const V2_REF = "#/definitions/";
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch"];

/**
 * Builds the OpenAPI v2 document of the kinds served (`served`: the verbs with handlers),
 * letting other work run between group versions.
 */
export async function buildOpenApiV2(
  model: SchemaModel,
  kinds: readonly KindDef[],
  served: ReadonlySet<string>,
): Promise<Json> {
  const paths: Record<string, Json> = {};
  const definitions: Record<string, Json> = {};
  for (const gv of groupVersionsOf(kinds)) {
    await new Promise((resolve) => setTimeout(resolve, 0));
    const inGv = kinds.filter((k) => k.group === gv.group && k.version === gv.version);
    const v3 = buildOpenApiV3(model, gv.group, gv.version, inGv, served, { v2: true });
    const schemas = (v3.components as { schemas: Record<string, Json> }).schemas;
    for (const [name, s] of Object.entries(schemas)) definitions[name] ??= schemaToV2(s);
    for (const [p, item] of Object.entries(v3.paths as Record<string, Json>)) {
      paths[p] ??= pathItemToV2(item);
    }
  }
  addDiscoveryPaths(model, kinds, paths, definitions);
  return {
    swagger: "2.0",
    info: { title: "Kubernetes", version: OPENAPI_INFO_VERSION },
    paths: sortedByKey(paths),
    definitions: sortedByKey(definitions),
    securityDefinitions: {
      BearerToken: {
        description: "Bearer Token authentication",
        type: "apiKey",
        name: "authorization",
        in: "header",
      },
    },
    security: [{ BearerToken: [] }],
  };
}

/** A discovery GET answered with a meta/v1 type (`APIVersions`, `APIGroupList`, `APIGroup`). */
function discoveryGet(tag: string, operationId: string, description: string, type: string): Json {
  return {
    get: {
      description,
      consumes: ["application/json", "application/yaml", "application/vnd.kubernetes.protobuf"],
      produces: ["application/json", "application/yaml", "application/vnd.kubernetes.protobuf"],
      schemes: ["https"],
      tags: [tag],
      operationId,
      responses: {
        "200": { description: "OK", schema: { $ref: `${V2_REF}${META}.${type}` } },
        "401": { description: "Unauthorized" },
      },
    },
  };
}

/** `/api/`, `/apis/` and `/apis/<group>/`, as kube-apiserver lists them. */
function addDiscoveryPaths(
  model: SchemaModel,
  kinds: readonly KindDef[],
  paths: Record<string, Json>,
  definitions: Record<string, Json>,
): void {
  for (const name of ["meta.v1.APIVersions", "meta.v1.APIGroupList", "meta.v1.APIGroup"]) {
    for (const t of model.closure(name)) {
      definitions[t.openApiName] ??= schemaToV2(typeToOpenApi(model, t));
    }
  }
  paths["/api/"] = discoveryGet(
    "core",
    "getCoreAPIVersions",
    "get available API versions",
    "APIVersions",
  );
  paths["/apis/"] = discoveryGet(
    "apis",
    "getAPIVersions",
    "get available API versions",
    "APIGroupList",
  );
  for (const group of new Set(kinds.map((k) => k.group).filter((g) => g !== ""))) {
    const tag = group.replace(/\.k8s\.io$/, "").replace(/[.-]/g, "_");
    const id = tag.split("_").map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join("");
    paths[`/apis/${group}/`] = discoveryGet(
      tag,
      `get${id}APIGroup`,
      "get information of a group",
      "APIGroup",
    );
  }
}

function sortedByKey<T>(o: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0));
}

/** A v3 schema as v2 writes it. */
export function schemaToV2(s: Json): Json {
  const out: Json = {};
  const allOf = s.allOf as Json[] | undefined;
  const single = allOf?.length === 1 && typeof allOf[0].$ref === "string" && s.type === undefined;
  for (const [k, v] of Object.entries(s)) {
    if (k === "allOf" && single) {
      out.$ref = refToV2(allOf![0].$ref as string);
    } else if (k === "$ref") {
      out.$ref = refToV2(v as string);
    } else if (k === "properties") {
      out.properties = Object.fromEntries(
        Object.entries(v as Record<string, Json>).map(([n, p]) => [n, schemaToV2(p)]),
      );
    } else if (k === "items" || (k === "additionalProperties" && typeof v === "object")) {
      out[k] = schemaToV2(v as Json);
    } else if (k === "allOf") {
      out.allOf = (v as Json[]).map(schemaToV2);
    } else if (k !== "nullable") {
      out[k] = v;
    }
  }
  return out;
}

function refToV2(ref: string): string {
  return ref.startsWith(V3_REF) ? V2_REF + ref.slice(V3_REF.length) : ref;
}

function pathItemToV2(item: Json): Json {
  const out: Json = {};
  for (const m of METHODS) {
    if (item[m]) out[m] = operationToV2(item[m] as Json);
  }
  if (item.parameters) out.parameters = (item.parameters as Json[]).map(parameterToV2);
  return out;
}

/** A query or path parameter: its schema's type beside its name. */
function parameterToV2(p: Json): Json {
  const { schema, ...rest } = p as { schema?: Json } & Json;
  return { ...schema, ...rest };
}

function operationToV2(op: Json): Json {
  const produces: string[] = [];
  const responses: Json = {};
  for (const [code, r] of Object.entries(op.responses as Record<string, Json>)) {
    const content = r.content as Record<string, { schema: Json }> | undefined;
    const res: Json = { description: r.description };
    if (content) {
      for (const media of Object.keys(content)) if (!produces.includes(media)) produces.push(media);
      res.schema = schemaToV2(Object.values(content)[0].schema);
    }
    responses[code] = res;
  }
  const parameters = ((op.parameters as Json[] | undefined) ?? []).map(parameterToV2);
  const body = op.requestBody as { content: Record<string, { schema: Json }>; required?: boolean };
  let consumes = ["*/*"];
  if (body) {
    consumes = Object.keys(body.content);
    const schema = schemaToV2(Object.values(body.content)[0].schema);
    const required = body.required ? { required: true } : {};
    parameters.unshift({ name: "body", in: "body", ...required, schema });
  }
  const out: Json = { description: op.description, consumes, produces, schemes: ["https"] };
  for (const [k, v] of Object.entries(op)) {
    if (k === "requestBody" || k === "description") continue;
    if (k === "responses") out.responses = responses;
    else if (k !== "parameters") out[k] = v;
  }
  if (parameters.length > 0) out.parameters = parameters;
  return out;
}
