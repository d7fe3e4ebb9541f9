/**
 * What kube-apiserver's cluster authentication trust controller publishes for extension API
 * servers: the `kube-system/extension-apiserver-authentication` ConfigMap with this server's
 * client CA (`client-ca-file`) and the front proxy's CA, allowed names and headers
 * (`requestheader-*`, lists as JSON arrays), and the Role
 * `extension-apiserver-authentication-reader` that may read it. Written at start; what other
 * API servers on the same database published stays (CA bundles and lists are merged, as kube
 * merges them).
 *
 * The front proxy's part is `--requestheader-client-ca-file` with the `--requestheader-*`
 * flags; without that flag, the generated front-proxy CA that signs this server's proxy client
 * certificate, with its CN `front-proxy-client` as the one allowed name, so that extensions
 * trust this server's proxied requests.
 *
 * @module
 */
import { StatusError } from "../../shared/errors/status_error.ts";
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { pemCertificates, pemEncode } from "../../shared/pki/pem.ts";
import type { ResourceRegistry } from "../registry/resource_registry.ts";
import {
  EXTENSION_AUTHENTICATION_CONFIGMAP as CM,
  EXTENSION_AUTHENTICATION_READER_ROLE,
} from "../auth/authn/extension_authentication_lookup.ts";

/** The sources of the published data. */
export interface ClusterAuthenticationInfo {
  /** The client CA bundle (PEM). */
  clientCaPem: string;
  /** The front proxy's CA bundle (PEM); absent: no `requestheader-*` keys. */
  requestHeaderCaPem?: string;
  requestHeaderAllowedNames: string[];
  requestHeaderUsernameHeaders: string[];
  requestHeaderGroupHeaders: string[];
  requestHeaderExtraHeadersPrefixes: string[];
  requestHeaderUidHeaders: string[];
}

const PEM_KEYS = new Set(["client-ca-file", "requestheader-client-ca-file"]);

/** The ConfigMap's data for `info`. */
export function clusterAuthenticationData(info: ClusterAuthenticationInfo): Record<string, string> {
  const data: Record<string, string> = { "client-ca-file": info.clientCaPem };
  if (!info.requestHeaderCaPem) return data;
  data["requestheader-client-ca-file"] = info.requestHeaderCaPem;
  data["requestheader-allowed-names"] = JSON.stringify(info.requestHeaderAllowedNames);
  data["requestheader-username-headers"] = JSON.stringify(info.requestHeaderUsernameHeaders);
  data["requestheader-group-headers"] = JSON.stringify(info.requestHeaderGroupHeaders);
  data["requestheader-extra-headers-prefix"] = JSON.stringify(
    info.requestHeaderExtraHeadersPrefixes,
  );
  if (info.requestHeaderUidHeaders.length > 0) {
    data["requestheader-uid-headers"] = JSON.stringify(info.requestHeaderUidHeaders);
  }
  return data;
}

/** The union of two PEM bundles, by certificate, in first-seen order. */
function mergePem(a: string, b: string): string {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const der of [...pemCertificates(a), ...pemCertificates(b)]) {
    const key = der.join(",");
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(pemEncode("CERTIFICATE", der));
  }
  return out.join("");
}

function mergeList(a: string, b: string): string {
  try {
    const x = JSON.parse(a), y = JSON.parse(b);
    if (Array.isArray(x) && Array.isArray(y)) return JSON.stringify([...new Set([...x, ...y])]);
  } catch {
    // an unreadable value is replaced
  }
  return b;
}

/** `current` with `wanted` merged in; undefined when nothing changes. */
export function mergeClusterAuthenticationData(
  current: Record<string, string>,
  wanted: Record<string, string>,
): Record<string, string> | undefined {
  const out = { ...current };
  for (const [k, v] of Object.entries(wanted)) {
    const old = current[k];
    out[k] = old === undefined ? v : PEM_KEYS.has(k) ? mergePem(old, v) : mergeList(old, v);
  }
  return JSON.stringify(out) === JSON.stringify(current) ? undefined : out;
}

/** Writes the ConfigMap (merged with what is there) and creates the reader Role if missing. */
export async function publishClusterAuthentication(
  registry: ResourceRegistry,
  info: ClusterAuthenticationInfo,
): Promise<void> {
  const wanted = clusterAuthenticationData(info);
  await registry.lookup("", "v1", "configmaps")!.guaranteedUpdate(
    CM.namespace,
    CM.name,
    (cur?: KubeObject) => {
      if (!cur) return { metadata: { name: CM.name, namespace: CM.namespace }, data: wanted };
      const data = mergeClusterAuthenticationData(
        (cur.data ?? {}) as Record<string, string>,
        wanted,
      );
      return data ? { ...cur, data } : undefined;
    },
    {},
    { allowCreate: true, fieldManager: "kube-apiserver" },
  );
  try {
    await registry.lookup("rbac.authorization.k8s.io", "v1", "roles")!.create(CM.namespace, {
      metadata: {
        name: EXTENSION_AUTHENTICATION_READER_ROLE,
        namespace: CM.namespace,
        labels: { "kubernetes.io/bootstrapping": "rbac-defaults" },
        annotations: { "rbac.authorization.kubernetes.io/autoupdate": "true" },
      },
      rules: [{
        apiGroups: [""],
        resources: ["configmaps"],
        resourceNames: [CM.name],
        verbs: ["get", "list", "watch"],
      }],
    });
  } catch (err) {
    if (!(err instanceof StatusError && err.code === 409)) throw err;
  }
}
