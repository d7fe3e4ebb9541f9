/**
 * RequestInfo: what a request addresses, parsed from its method, path and query the way
 * k8s.io/apiserver does (request/requestinfo.go). Authorization, admission and routing all
 * read it.
 *
 * @module
 */
import { parseBool } from "./query.ts";

/** The parsed request. */
export interface RequestInfo {
  /** True for `/api/...` and `/apis/...` resource paths. */
  isResourceRequest: boolean;
  /** The URL path. */
  path: string;
  /** The API verb (get, list, watch, create, update, patch, delete, deletecollection) or the
   * lowercase HTTP method for non-resource requests. */
  verb: string;
  /** `api` or `apis` for resource requests. */
  apiPrefix: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  /** Path segments after the subresource (e.g. a proxy path). */
  parts: string[];
  /** Set when the legacy `/watch/` path form was used. */
  legacyWatch: boolean;
}

const NAMESPACE_SUBRESOURCES = new Set(["status", "finalize"]);
const SPECIAL_VERBS = new Set(["proxy", "watch"]);
/** The verb of a resource request by HTTP method (before list, watch and deletecollection). */
const METHOD_VERBS: Readonly<Record<string, string>> = {
  POST: "create",
  GET: "get",
  HEAD: "get",
  PUT: "update",
  PATCH: "patch",
  DELETE: "delete",
};

/** Parses the RequestInfo of a request. */
export function parseRequestInfo(method: string, url: URL): RequestInfo {
  const info: RequestInfo = {
    isResourceRequest: false,
    path: url.pathname,
    verb: method.toLowerCase(),
    apiPrefix: "",
    apiGroup: "",
    apiVersion: "",
    namespace: "",
    resource: "",
    subresource: "",
    name: "",
    parts: [],
    legacyWatch: false,
  };
  let segs = url.pathname.replace(/^\/+/, "").replace(/\/+$/, "").split("/");
  if (segs.length === 1 && segs[0] === "") segs = [];
  if (segs.length < 3 || (segs[0] !== "api" && segs[0] !== "apis")) return info;
  info.apiPrefix = segs[0];
  segs = segs.slice(1);
  if (info.apiPrefix === "apis") {
    if (segs.length < 3) return info;
    info.apiGroup = segs[0];
    segs = segs.slice(1);
  }
  info.apiVersion = segs[0];
  segs = segs.slice(1);
  if (segs.length === 0) return info;
  info.isResourceRequest = true;
  if (SPECIAL_VERBS.has(segs[0])) {
    if (segs.length < 2) {
      info.isResourceRequest = false;
      return info;
    }
    info.verb = segs[0];
    info.legacyWatch = segs[0] === "watch";
    segs = segs.slice(1);
  } else {
    info.verb = Object.hasOwn(METHOD_VERBS, method) ? METHOD_VERBS[method] : "";
  }
  if (segs[0] === "namespaces") {
    if (segs.length > 1) {
      info.namespace = segs[1];
      if (segs.length > 2 && !NAMESPACE_SUBRESOURCES.has(segs[2])) segs = segs.slice(2);
    }
  }
  info.resource = segs[0] ?? "";
  if (segs.length >= 2) info.name = segs[1];
  if (segs.length >= 3) info.subresource = segs[2];
  if (segs.length >= 4) info.parts = segs.slice(3);
  if (info.name === "" && info.verb === "get") {
    info.verb = parseBool(url.searchParams.get("watch")) ? "watch" : "list";
  }
  if (info.name === "" && info.verb === "delete") info.verb = "deletecollection";
  if (info.verb === "list" || info.verb === "watch") {
    const fs = url.searchParams.get("fieldSelector") ?? "";
    const m = /^metadata\.name==?([^,]*)$/.exec(fs);
    if (m) info.name = m[1];
  }
  return info;
}
