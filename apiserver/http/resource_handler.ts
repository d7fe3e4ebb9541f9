/**
 * Dispatches a resource request to the handler of its verb, after checking that the kind
 * serves that verb on that path (404 for unknown resources, 405 for unsupported verbs).
 *
 * @module
 */
import { StatusError } from "../../shared/errors/status_error.ts";
import type { ResourceRegistry } from "../registry/resource_registry.ts";
import {
  ALL_VERBS,
  apiVersionOf,
  type KindDef,
  type SubresourceDef,
  type Verb,
} from "../registry/generic/kind.ts";
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import type { UserInfo } from "../../shared/api/authentication/v1/user_info.ts";
import type { Store } from "../registry/generic/store.ts";
import type { ResourceContext } from "./context.ts";
import type { ConnInfo } from "../../shared/http/https_server.ts";
import { negotiateOutput } from "./negotiation.ts";
import type { PatchAppliers } from "./patch_applier.ts";
import type { YamlDecoder } from "./yaml_decoder.ts";
import { hasProtobuf } from "../../shared/codec/protobuf/mod.ts";
import type { RequestInfo } from "./request_info.ts";
import { warningHeader } from "./respond.ts";
import type { ConnectHandler } from "./pod_connect.ts";

/** Serves one verb of resource requests. */
export type VerbHandler = (ctx: ResourceContext) => Promise<Response>;

/** The handler of each served verb. */
export type VerbHandlers = Partial<Record<Verb, VerbHandler>>;

/** What {@link ResourceHandler} needs. */
export interface ResourceHandlerOptions {
  registry: ResourceRegistry;
  /** The verb handlers; discovery advertises only these verbs. */
  verbs: VerbHandlers;
  /** Whether the WatchList feature gate is on (asked per request). */
  watchListEnabled?: () => boolean;
  /** The patch types the server applies (PATCH). */
  patchAppliers: PatchAppliers;
  /** Parses large YAML bodies off the request thread. */
  yamlDecoder?: YamlDecoder;
  /** Serves the connect subresources it knows (pods/log, exec, attach, portforward). */
  connect?: ConnectHandler;
}

const API_VERBS = [
  "get",
  "list",
  "watch",
  "create",
  "update",
  "patch",
  "delete",
  "deletecollection",
];

function methodNotAllowed(): StatusError {
  return new StatusError({
    code: 405,
    reason: "MethodNotAllowed",
    message: `the server does not allow this method on the requested resource`,
  });
}

/** Serves resource requests: finds the store, checks the verb and path, calls the verb's handler. */
export class ResourceHandler {
  readonly #opts: ResourceHandlerOptions;

  constructor(opts: ResourceHandlerOptions) {
    this.#opts = opts;
  }

  /** The verbs that have a handler. */
  servedVerbs(): Set<string> {
    return new Set(Object.keys(this.#opts.verbs));
  }

  /** Serves one resource request. */
  handle(
    req: Request,
    conn: ConnInfo,
    url: URL,
    info: RequestInfo,
    user: UserInfo | undefined,
    warnings: string[],
    request: {
      auditAnnotations?: Record<string, string>;
      deprecated?: { removedRelease?: string };
    } = {},
  ): Promise<Response> {
    const store = this.#opts.registry.lookupServed(info.apiGroup, info.apiVersion, info.resource);
    if (!store) throw StatusError.pathNotFound();
    const def = store.def;
    if (def.namespaced === false && info.namespace && info.resource !== "namespaces") {
      throw StatusError.pathNotFound();
    }
    // A deprecated version warns on every request to it, whatever the verb or the outcome.
    if (def.deprecationWarning) this.#deprecated(def, warnings, request);
    const namespace = def.namespaced ? info.namespace : "";
    const sub = info.subresource
      ? def.subresources?.find((s) => s.name === info.subresource)
      : undefined;
    if (sub?.unavailable && info.name) {
      return this.#connect(req, conn, url, { ...info, namespace }, store, sub, user);
    }
    const handler = this.#handlerOf(store, info, namespace);
    // A watch negotiates its stream format itself (JSON lines, `;stream=watch` allowed).
    const format = info.verb === "watch" ? "json" : negotiateOutput(req.headers.get("accept"), {
      protobuf: hasProtobuf(apiVersionOf(def), def.kind),
      representations: info.verb === "get" || info.verb === "list"
        ? ["Table", "PartialObjectMetadata", "PartialObjectMetadataList"]
        : [],
    });
    return handler({
      req,
      conn,
      url,
      info: { ...info, namespace },
      store,
      format,
      user,
      warnings,
      auditAnnotations: request.auditAnnotations,
      watchListEnabled: this.#opts.watchListEnabled?.(),
      patchAppliers: this.#opts.patchAppliers,
      yamlDecoder: this.#opts.yamlDecoder,
    });
  }

  /**
   * A connect subresource: admitted (those with options) and served by the connect handler,
   * or the 503 it answers while nothing serves it.
   */
  async #connect(
    req: Request,
    conn: ConnInfo,
    url: URL,
    info: RequestInfo,
    store: Store,
    sub: SubresourceDef,
    user: UserInfo | undefined,
  ): Promise<Response> {
    if (sub.requestKind) await admitConnect(store, sub, url, info, user);
    const res = await this.#opts.connect?.({
      req,
      url,
      namespace: info.namespace,
      name: info.name,
      subresource: sub.name,
      verb: info.verb,
      hasPath: info.parts.length > 0,
      signal: conn.signal,
    });
    if (res) return res;
    throw new StatusError({ code: 503, reason: "ServiceUnavailable", message: sub.unavailable });
  }

  /** A deprecated version's Warning header, audit annotations and metric mark (kube's). */
  #deprecated(
    def: KindDef,
    warnings: string[],
    request: {
      auditAnnotations?: Record<string, string>;
      deprecated?: { removedRelease?: string };
    },
  ): void {
    warnings.push(warningHeader(def.deprecationWarning!));
    request.deprecated = def.removedRelease ? { removedRelease: def.removedRelease } : {};
    const audit = request.auditAnnotations;
    if (!audit) return;
    audit["k8s.io/deprecated"] = "true";
    if (def.removedRelease) audit["k8s.io/removed-release"] = def.removedRelease;
  }

  /** The handler of the request's verb, or the 404 or 405 the path and verb call for. */
  #handlerOf(store: Store, info: RequestInfo, namespace: string): VerbHandler {
    const def = store.def;
    const verb = info.verb;
    const served = servedVerbsOf(def, info);
    const verbs = this.#opts.verbs;
    const handler = Object.hasOwn(verbs, verb) ? verbs[verb as Verb] : undefined;
    if (!handler || !served.includes(verb as Verb)) {
      if (!API_VERBS.includes(verb)) throw methodNotAllowed();
      throw StatusError.methodNotSupported(store.groupResource, verb);
    }
    // PUT and PATCH exist only on named objects (Kubernetes answers 405 on a collection).
    if (!info.name && (verb === "update" || verb === "patch")) throw methodNotAllowed();
    if (def.namespaced && !namespace && !["list", "watch", "deletecollection"].includes(verb)) {
      if (verb === "create") throw StatusError.methodNotSupported(store.groupResource, "create");
      throw StatusError.pathNotFound();
    }
    if (verb === "deletecollection" && def.namespaced && !namespace) {
      throw StatusError.pathNotFound();
    }
    return handler;
  }
}

/** The verbs the kind serves on the request's path (its subresource's, if any; 404 if none). */
function servedVerbsOf(def: KindDef, info: RequestInfo): readonly Verb[] {
  if (!info.subresource) return def.verbs ?? ALL_VERBS;
  const sub = def.subresources?.find((s) => s.name === info.subresource);
  if (sub?.unavailable) {
    throw new StatusError({ code: 503, reason: "ServiceUnavailable", message: sub.unavailable });
  }
  if (!sub || info.parts.length > 0) throw StatusError.pathNotFound();
  return sub.verbs;
}

/**
 * Admits a connect subresource request (`pods/exec`, `attach`, `portforward`, `proxy`,
 * `nodes/proxy`, `services/proxy`) as CONNECT with its options object built from the query,
 * as kube-apiserver's connect handler does.
 */
async function admitConnect(
  store: Store,
  sub: SubresourceDef,
  url: URL,
  info: RequestInfo,
  user: UserInfo | undefined,
): Promise<void> {
  await store.admitRequest({
    operation: "CONNECT",
    namespace: info.namespace,
    name: info.name,
    subresource: sub.name,
    object: connectOptions(sub, url, info),
    user,
    dryRun: false,
  });
}

/** The connect options object of a request (PodExecOptions...), from its query and path. */
function connectOptions(sub: SubresourceDef, url: URL, info: RequestInfo): KubeObject {
  const rk = sub.requestKind!;
  const obj: KubeObject = { apiVersion: apiVersionOf(rk), kind: rk.kind, metadata: {} };
  const lists = new Set(["command", "ports"]);
  for (const key of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(key).map((v) =>
      v === "true" ? true : v === "false" ? false : /^[0-9]+$/.test(v) && key === "ports" ? +v : v
    );
    obj[key] = lists.has(key) || values.length > 1 ? values : values[0];
  }
  if (info.parts.length > 0) obj.path = "/" + info.parts.join("/");
  return obj;
}
