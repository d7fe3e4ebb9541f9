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
  const h = req.headers;
  if (!hasImpersonation(h, names)) return user;
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
  const extraKeys = Object.keys(extra).sort();
  if (!username) {
    if (groups.length || extraKeys.length || uid) {
      const what = [
        ...(groups.length ? ["groups"] : []),
        ...(extraKeys.length ? ["extra"] : []),
        ...(uid ? ["uid"] : []),
      ].join(", ");
      throw StatusError.badRequest(
        `requested impersonation of ${what} without impersonating a user`,
      );
    }
    return user;
  }

  const requests: ImpersonationRequest[] = [];
  const sa = parseServiceAccountUsername(username);
  if (sa) {
    requests.push({
      apiGroup: "",
      resource: "serviceaccounts",
      subresource: "",
      namespace: sa.namespace,
      name: sa.name,
    });
  } else {
    requests.push({
      apiGroup: "",
      resource: "users",
      subresource: "",
      namespace: "",
      name: username,
    });
  }
  for (const g of groups) {
    requests.push({ apiGroup: "", resource: "groups", subresource: "", namespace: "", name: g });
  }
  for (const key of extraKeys) {
    for (const value of extra[key]) {
      requests.push({
        apiGroup: "authentication.k8s.io",
        resource: "userextras",
        subresource: key,
        namespace: "",
        name: value,
      });
    }
  }
  if (uid) {
    requests.push({
      apiGroup: "authentication.k8s.io",
      resource: "uids",
      subresource: "",
      namespace: "",
      name: uid,
    });
  }

  const path = new URL(req.url).pathname;
  for (const r of requests) {
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
