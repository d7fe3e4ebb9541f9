/**
 * Dispatches a resource request to the handler of its verb, after checking that the kind
 * serves that verb on that path (404 for unknown resources, 405 for unsupported verbs).
 *
 * @module
 */
import { StatusError } from "../../shared/errors/status_error.ts";
import type { ResourceRegistry } from "../registry/resource_registry.ts";
import { ALL_VERBS, apiVersionOf, type Verb } from "../registry/generic/kind.ts";
import type { UserInfo } from "../../shared/api/authentication/v1/user_info.ts";
import type { ResourceContext } from "./context.ts";
import type { ConnInfo } from "./https_server.ts";
import { handleCreate } from "./handlers/create.ts";
import { handleDelete } from "./handlers/delete.ts";
import { handleDeleteCollection } from "./handlers/delete_collection.ts";
import { handleGet } from "./handlers/get.ts";
import { handleList } from "./handlers/list.ts";
import { handlePatch } from "./handlers/patch.ts";
import { handleUpdate } from "./handlers/update.ts";
import { negotiateOutput } from "./negotiation.ts";
import { hasProtobuf } from "../../shared/codec/protobuf/mod.ts";
import type { RequestInfo } from "./request_info.ts";

type Handler = (ctx: ResourceContext) => Promise<Response>;

const HANDLERS: Partial<Record<string, Handler>> = {
  get: handleGet,
  list: handleList,
  create: handleCreate,
  update: handleUpdate,
  delete: handleDelete,
  deletecollection: handleDeleteCollection,
  patch: handlePatch,
};

/** Extra verb handlers registered by later parts (watch, patch). */
export function registerVerbHandler(verb: string, handler: Handler): void {
  HANDLERS[verb] = handler;
}

/** The verbs that have a handler (discovery advertises only these). */
export function servedVerbs(): Set<string> {
  return new Set(Object.keys(HANDLERS));
}

/** Serves one resource request. */
export function handleResource(
  req: Request,
  url: URL,
  info: RequestInfo,
  registry: ResourceRegistry,
  user: UserInfo | undefined,
  warnings: string[],
  opts: { conn: ConnInfo; watchListEnabled?: boolean },
): Promise<Response> {
  const store = registry.lookup(info.apiGroup, info.apiVersion, info.resource);
  if (!store) throw StatusError.pathNotFound();
  const def = store.def;
  if (def.namespaced === false && info.namespace && info.resource !== "namespaces") {
    throw StatusError.pathNotFound();
  }
  const namespace = def.namespaced ? info.namespace : "";
  const effective: RequestInfo = { ...info, namespace };
  let served: readonly Verb[] = def.verbs ?? ALL_VERBS;
  if (info.subresource) {
    const sub = def.subresources?.find((s) => s.name === info.subresource);
    if (!sub || info.parts.length > 0) throw StatusError.pathNotFound();
    served = sub.verbs;
  }
  const verb = info.verb;
  const handler = HANDLERS[verb];
  if (!handler || !served.includes(verb as Verb)) {
    if (
      !["get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"].includes(
        verb,
      )
    ) {
      throw new StatusError({
        code: 405,
        reason: "MethodNotAllowed",
        message: `the server does not allow this method on the requested resource`,
      });
    }
    throw StatusError.methodNotSupported(store.groupResource, verb);
  }
  if (!info.name && (verb === "update" || verb === "patch")) {
    // PUT and PATCH exist only on named objects (Kubernetes answers 405 on a collection).
    throw new StatusError({
      code: 405,
      reason: "MethodNotAllowed",
      message: `the server does not allow this method on the requested resource`,
    });
  }
  if (def.namespaced && !namespace && !["list", "watch", "deletecollection"].includes(verb)) {
    if (verb === "create") {
      throw StatusError.methodNotSupported(store.groupResource, "create");
    }
    throw StatusError.pathNotFound();
  }
  if (verb === "deletecollection" && def.namespaced && !namespace) {
    throw StatusError.pathNotFound();
  }
  // A watch negotiates its stream format itself (JSON lines, `;stream=watch` allowed).
  const format = verb === "watch" ? "json" : negotiateOutput(req.headers.get("accept"), {
    protobuf: hasProtobuf(apiVersionOf(def), def.kind),
    representations: verb === "get" || verb === "list"
      ? ["Table", "PartialObjectMetadata", "PartialObjectMetadataList"]
      : [],
  });
  return handler({
    req,
    conn: opts.conn,
    url,
    info: effective,
    store,
    format,
    user,
    warnings,
    watchListEnabled: opts.watchListEnabled,
  });
}
