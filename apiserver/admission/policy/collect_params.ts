/**
 * The param objects a binding hands to its policy, as Kubernetes' CollectParams finds them:
 * none needed (no paramKind, or no paramRef: one evaluation with `params` null), one by name,
 * or every object a selector picks, in the paramRef's namespace or the request's; none found
 * is an error under `parameterNotFoundAction: Deny`, and no evaluation under Allow.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import { isObject } from "../../../shared/json/is_object.ts";
import {
  labelSelectorFromObject,
  type LabelSelectorObject,
} from "../../../shared/selectors/label_selector.ts";
import type { Store } from "../../registry/generic/store.ts";

/** Thrown for a configuration problem (the failure policy decides). */
export class ParamError extends Error {}

/** Finds the store of a param kind by apiVersion and kind. */
export type ParamStoreLookup = (apiVersion: string, kind: string) => Store | undefined;

/** The not-found message of a paramKind, as Go prints a GroupVersionKind. */
export function unknownParamKind(pk: { apiVersion: string; kind: string }): string {
  const [group, version] = pk.apiVersion.includes("/")
    ? pk.apiVersion.split("/", 2)
    : ["", pk.apiVersion];
  return `failed to find resource referenced by paramKind: '${group}/${version}, Kind=${pk.kind}'`;
}

async function byName(store: Store, namespace: string, name: string): Promise<KubeObject[]> {
  try {
    return [await store.get(namespace, name)];
  } catch (e) {
    if (e instanceof StatusError && e.code === 404) return [];
    throw e;
  }
}

async function bySelector(store: Store, namespace: string, sel: unknown): Promise<KubeObject[]> {
  let selector;
  try {
    selector = labelSelectorFromObject(sel as LabelSelectorObject);
  } catch (e) {
    throw new ParamError(e instanceof Error ? e.message : String(e));
  }
  const list = await store.list(namespace, {
    plan: { mode: "latest" },
    labels: selector.empty() ? undefined : (l) => selector.matches(l),
  });
  return list.items;
}

/**
 * The params to evaluate with: `[null]` when none are needed, the objects found, or `[]` (no
 * evaluation). Throws {@link ParamError} for configuration problems.
 */
export async function collectParams(
  paramKind: { apiVersion: string; kind: string } | undefined,
  paramRef: unknown,
  requestNamespace: string,
  lookup: ParamStoreLookup,
): Promise<(KubeObject | null)[]> {
  if (!paramKind || !isObject(paramRef)) return [null];
  const store = lookup(paramKind.apiVersion, paramKind.kind);
  if (!store) throw new ParamError(unknownParamKind(paramKind));
  const refNs = typeof paramRef.namespace === "string" ? paramRef.namespace : "";
  let namespace = "";
  if (store.def.namespaced) {
    namespace = refNs || requestNamespace;
    if (!namespace) {
      throw new ParamError(
        "cannot use namespaced paramRef in policy binding that matches cluster-scoped resources",
      );
    }
  } else if (refNs) {
    throw new ParamError(
      "paramRef.namespace must not be provided for a cluster-scoped `paramKind`",
    );
  }
  const name = typeof paramRef.name === "string" ? paramRef.name : "";
  let params: KubeObject[];
  if (name) params = await byName(store, namespace, name);
  else if (paramRef.selector !== undefined && paramRef.selector !== null) {
    params = await bySelector(store, namespace, paramRef.selector);
  } else throw new ParamError("one of name or selector must be provided");
  if (params.length === 0 && paramRef.parameterNotFoundAction === "Deny") {
    throw new ParamError("no params found for policy binding with `Deny` parameterNotFoundAction");
  }
  // Objects from the watch cache are shared: give them their type without changing them.
  return params.map((p) => ({ apiVersion: paramKind.apiVersion, kind: paramKind.kind, ...p }));
}
