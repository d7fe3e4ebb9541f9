/**
 * Impersonation: after authentication, the `Impersonate-User`, `Impersonate-Group`,
 * `Impersonate-Extra-<key>` and `Impersonate-Uid` headers make the request run as another
 * identity. Each requested value is checked with the `impersonate` verb through the
 * authorizer: `users` (or `serviceaccounts` for `system:serviceaccount:<ns>:<name>`) and
 * `groups` in the core group, `userextras/<key>` and `uids` in `authentication.k8s.io`, with
 * the value as the resource name. A denial is 403; groups, extra or uid without a user is 400,
 * and so is more than one `Impersonate-User` or `Impersonate-Uid` header.
 * The impersonated user gets `system:authenticated` (or `system:unauthenticated` when it is
 * `system:anonymous`), as in Kubernetes.
 *
 * @module
 */
import { StatusError } from "../../shared/errors/status_error.ts";
import type { UserInfo } from "../../shared/api/authentication/v1/user_info.ts";
import {
  ANONYMOUS_USER,
  AUTHENTICATED_GROUP,
  UNAUTHENTICATED_GROUP,
} from "./authn/authenticator.ts";
import {
  parseServiceAccountUsername,
  serviceAccountGroups,
} from "./authn/service_account_token.ts";
import { type Authorizer, type AuthzAttributes, forbiddenMessage } from "./authz/authorizer.ts";

/** The impersonation header names (lowercase, as Headers yields them). */
export const IMPERSONATE_USER = "impersonate-user";
/** Repeatable group header. */
export const IMPERSONATE_GROUP = "impersonate-group";
/** UID header. */
export const IMPERSONATE_UID = "impersonate-uid";
/** Prefix of extra headers; the rest of the name is the (percent-encoded) key. */
export const IMPERSONATE_EXTRA_PREFIX = "impersonate-extra-";

/** One value a caller asks to act as, with the resource that grants it. */
interface ImpersonationRequest {
  apiGroup: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
}

function splitValues(v: string | null): string[] {
  if (v === null) return [];
  // Repeated headers arrive joined by ", ".
  return v.split(",").map((s) => s.trim()).filter((s) => s !== "");
}

function unescapeKey(key: string): string {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}

/** How often header `lower` was received (0 when the names are unknown). */
function countNames(names: readonly string[] | undefined, lower: string): number {
  let n = 0;
  for (const name of names ?? []) if (name.toLowerCase() === lower) n++;
  return n;
}

/** `impersonate-user` → `Impersonate-User`. */
function canonicalName(lower: string): string {
  return lower.replace(/(^|-)([a-z])/g, (_, dash, c) => dash + c.toUpperCase());
}

/**
 * Whether the request carries any impersonation header. `names` (the header names as received,
 * when the listener knows them) spares iterating `headers`, which is costly.
 */
export function hasImpersonation(headers: Headers, names?: readonly string[]): boolean {
  if (names) {
    for (const name of names) {
      if (name.length >= 12 && name.slice(0, 12).toLowerCase() === "impersonate-") return true;
    }
    return false;
  }
  for (const [name] of headers) if (name.toLowerCase().startsWith("impersonate-")) return true;
  return false;
}

/** The identity a request asks to act as, read from its impersonation headers. */
interface ImpersonationHeaders {
  username: string;
  groups: string[];
  uid: string;
  extra: Record<string, string[]>;
  /** The keys of `extra`, sorted. */
  extraKeys: string[];
}

/**
 * Applies the impersonation headers of `req` to `user`: returns the identity the request runs
 * as (the authenticated user itself when there is no impersonation header). Throws a
 * StatusError (400, 403) when the caller may not impersonate what it asked for. `names` are the
 * header names as received, when the listener knows them (see {@link hasImpersonation}).
 */
export async function impersonate(
  req: Request,
  user: UserInfo,
  authorizer: Authorizer,
  names?: readonly string[],
): Promise<UserInfo> {
  if (!hasImpersonation(req.headers, names)) return user;
  const wanted = readImpersonationHeaders(req.headers, names);
  if (!wanted.username) {
    rejectWithoutUser(wanted);
    return user;
  }
  const sa = parseServiceAccountUsername(wanted.username);
  const path = new URL(req.url).pathname;
  for (const r of impersonationRequests(wanted, sa)) {
    await authorizeImpersonation(authorizer, user, path, r);
  }
  return impersonatedUser(wanted, sa);
}

/** Reads the impersonation headers; throws a 400 on a repeated user or uid header. */
function readImpersonationHeaders(
  h: Headers,
  names: readonly string[] | undefined,
): ImpersonationHeaders {
  for (const single of [IMPERSONATE_USER, IMPERSONATE_UID]) {
    if (countNames(names, single) > 1) {
      throw StatusError.badRequest(`only one ${canonicalName(single)} header is allowed`);
    }
  }
  const username = h.get(IMPERSONATE_USER)?.trim() ?? "";
  const groups = splitValues(h.get(IMPERSONATE_GROUP));
  const uid = h.get(IMPERSONATE_UID)?.trim() ?? "";
  const extra: Record<string, string[]> = {};
  for (const [name, value] of h) {
    const lower = name.toLowerCase();
    if (!lower.startsWith(IMPERSONATE_EXTRA_PREFIX)) continue;
    const key = unescapeKey(lower.slice(IMPERSONATE_EXTRA_PREFIX.length)).toLowerCase();
    if (!key) continue;
    (extra[key] ??= []).push(...splitValues(value));
  }
  return { username, groups, uid, extra, extraKeys: Object.keys(extra).sort() };
}

/** Throws a 400 when groups, extra or a uid are asked for without a user. */
function rejectWithoutUser({ groups, extraKeys, uid }: ImpersonationHeaders): void {
  if (!groups.length && !extraKeys.length && !uid) return;
  const what = [
    ...(groups.length ? ["groups"] : []),
    ...(extraKeys.length ? ["extra"] : []),
    ...(uid ? ["uid"] : []),
  ].join(", ");
  throw StatusError.badRequest(`requested impersonation of ${what} without impersonating a user`);
}

/** Every value asked for, each with the resource whose `impersonate` verb grants it. */
function impersonationRequests(
  wanted: ImpersonationHeaders,
  sa: { namespace: string; name: string } | undefined,
): ImpersonationRequest[] {
  const core = (resource: string, namespace: string, name: string): ImpersonationRequest => ({
    apiGroup: "",
    resource,
    subresource: "",
    namespace,
    name,
  });
  const authn = (resource: string, subresource: string, name: string): ImpersonationRequest => ({
    apiGroup: "authentication.k8s.io",
    resource,
    subresource,
    namespace: "",
    name,
  });
  const requests = [
    sa ? core("serviceaccounts", sa.namespace, sa.name) : core("users", "", wanted.username),
  ];
  for (const g of wanted.groups) requests.push(core("groups", "", g));
  for (const key of wanted.extraKeys) {
    for (const value of wanted.extra[key]) requests.push(authn("userextras", key, value));
  }
  if (wanted.uid) requests.push(authn("uids", "", wanted.uid));
  return requests;
}

/** Asks the authorizer whether `user` may impersonate `r`; throws a 403 when not. */
async function authorizeImpersonation(
  authorizer: Authorizer,
  user: UserInfo,
  path: string,
  r: ImpersonationRequest,
): Promise<void> {
  const attrs: AuthzAttributes = {
    user,
    verb: "impersonate",
    isResourceRequest: true,
    path,
    apiGroup: r.apiGroup,
    apiVersion: "v1",
    resource: r.resource,
    subresource: r.subresource,
    namespace: r.namespace,
    name: r.name,
  };
  const d = await authorizer.authorize(attrs);
  if (d.decision !== "allow") {
    const message = forbiddenMessage(attrs) + (d.reason ? `: ${d.reason}` : "");
    throw StatusError.forbidden({ group: r.apiGroup, resource: r.resource }, r.name, message);
  }
}

/** The impersonated identity, with `system:authenticated` (or `system:unauthenticated`). */
function impersonatedUser(
  { username, groups, uid, extra, extraKeys }: ImpersonationHeaders,
  sa: { namespace: string; name: string } | undefined,
): UserInfo {
  let resultGroups = groups.length ? [...groups] : sa ? serviceAccountGroups(sa.namespace) : [];
  if (username !== ANONYMOUS_USER) {
    if (!resultGroups.includes(AUTHENTICATED_GROUP)) {
      resultGroups = [...resultGroups, AUTHENTICATED_GROUP];
    }
  } else if (!resultGroups.includes(UNAUTHENTICATED_GROUP)) {
    resultGroups = [...resultGroups, UNAUTHENTICATED_GROUP];
  }
  const result: UserInfo = { username, groups: resultGroups };
  if (uid) result.uid = uid;
  if (extraKeys.length) result.extra = extra;
  return result;
}
