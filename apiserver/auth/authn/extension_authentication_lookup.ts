/**
 * What an extension API server reads from the main server's
 * `kube-system/extension-apiserver-authentication` ConfigMap at start, as kube's delegating
 * authentication does when `--authentication-skip-lookup` is false: the client CA
 * (`client-ca-file`) and the front proxy's CA, allowed names and headers
 * (`requestheader-*`, the lists as JSON arrays). A missing ConfigMap yields nothing; a
 * forbidden read says which Role grants it.
 *
 * @module
 */
import type { ClientConfig } from "../../../shared/client/kubeconfig.ts";
import { RestClient } from "../../../shared/client/rest_client.ts";
import type { RequestHeaderOptions } from "./request_header.ts";

/** The ConfigMap's namespace and name. */
export const EXTENSION_AUTHENTICATION_CONFIGMAP = {
  namespace: "kube-system",
  name: "extension-apiserver-authentication",
} as const;

/** The Role in kube-system that may read it. */
export const EXTENSION_AUTHENTICATION_READER_ROLE = "extension-apiserver-authentication-reader";

/** The authentication configuration found in the ConfigMap. */
export interface LookedUpAuthentication {
  /** `client-ca-file`. */
  clientCaPem?: string;
  /** The `requestheader-*` keys, when `requestheader-client-ca-file` is present. */
  requestHeader?: RequestHeaderOptions;
}

function jsonList(data: Record<string, string>, key: string): string[] | undefined {
  const text = data[key];
  if (text === undefined || text === "") return undefined;
  const v = JSON.parse(text);
  if (!Array.isArray(v) || v.some((s) => typeof s !== "string")) {
    throw new Error(`${key}: not a JSON array of strings`);
  }
  return v;
}

/** Reads the ConfigMap's data into authentication configuration. */
export function parseExtensionAuthentication(
  data: Record<string, string>,
): LookedUpAuthentication {
  const out: LookedUpAuthentication = {};
  if (data["client-ca-file"]) out.clientCaPem = data["client-ca-file"];
  const caPem = data["requestheader-client-ca-file"];
  if (caPem) {
    out.requestHeader = {
      caPem,
      allowedNames: jsonList(data, "requestheader-allowed-names") ?? [],
      usernameHeaders: jsonList(data, "requestheader-username-headers"),
      groupHeaders: jsonList(data, "requestheader-group-headers"),
      extraHeaderPrefixes: jsonList(data, "requestheader-extra-headers-prefix"),
      uidHeaders: jsonList(data, "requestheader-uid-headers"),
    };
  }
  return out;
}

/** Reads the ConfigMap through `config` (the `--authentication-kubeconfig`). */
export async function lookupExtensionAuthentication(
  config: ClientConfig,
): Promise<LookedUpAuthentication> {
  const client = new RestClient(config);
  const { namespace, name } = EXTENSION_AUTHENTICATION_CONFIGMAP;
  try {
    const res = await client.request("GET", `/api/v1/namespaces/${namespace}/configmaps/${name}`, {
      signal: AbortSignal.timeout(10_000),
    });
    if (res.status === 404) return {};
    if (res.status === 403) {
      throw new Error(
        `Unable to get configmap/${name} in ${namespace}.  Usually fixed by 'kubectl create rolebinding -n ${namespace} ROLEBINDING_NAME --role=${EXTENSION_AUTHENTICATION_READER_ROLE} --serviceaccount=YOUR_NS:YOUR_SA'`,
      );
    }
    if (res.status !== 200) {
      throw new Error(`configmaps "${name}": the server answered HTTP ${res.status}`);
    }
    const cm = JSON.parse(res.body) as { data?: Record<string, string> };
    return parseExtensionAuthentication(cm.data ?? {});
  } finally {
    client.close();
  }
}
