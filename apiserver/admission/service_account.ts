/**
 * ServiceAccount admission, as kube 1.32's plugin: a new pod runs as the `default` service
 * account unless it names one, which must exist (403 "error looking up service account ...";
 * the `default` one is looked up a few times, since the serviceaccounts controller creates it
 * just after its namespace); unless the pod or its account turns automounting off, every
 * container and init container mounts the projected `kube-api-access-<random>` volume (a bound
 * token, the cluster CA from the `kube-root-ca.crt` ConfigMap, the namespace) at
 * /var/run/secrets/kubernetes.io/serviceaccount; the account's imagePullSecrets are copied
 * when the pod has none. Mirror pods are not changed, and may not reference service accounts,
 * secrets or configmaps.
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../shared/errors/status_error.ts";
import { isObject } from "../../shared/json/is_object.ts";
import type { AdmissionAttributes, AdmissionPlugin } from "../registry/generic/admission.ts";
import type { Store } from "../registry/generic/store.ts";
import { apiTokenVolume, mountTokenVolume } from "./service_account_volume.ts";

/** The account a pod runs as when it names none. */
export const DEFAULT_SERVICE_ACCOUNT = "default";
/** kube's mirror pod annotation. */
const MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror";
const PODS = { group: "", resource: "pods" };

/** How the plugin looks up service accounts (retries of the default account). */
export interface ServiceAccountPluginOptions {
  /** Attempts for the `default` account (kube: 10). */
  defaultAttempts?: number;
  /** Pause between attempts, ms (kube: 100 to 200, random). */
  retryMs?: () => number;
}

/** Builds the plugin; `serviceAccounts` is the ServiceAccount store. */
export function serviceAccountAdmission(
  serviceAccounts: () => Store,
  opts: ServiceAccountPluginOptions = {},
): AdmissionPlugin {
  const lookup = async (namespace: string, name: string): Promise<KubeObject> => {
    const attempts = name === DEFAULT_SERVICE_ACCOUNT ? opts.defaultAttempts ?? 10 : 1;
    for (let i = 0;; i++) {
      try {
        return await serviceAccounts().get(namespace, name);
      } catch (err) {
        if (!(err instanceof StatusError && err.code === 404)) throw err;
        if (i + 1 >= attempts) {
          throw new Error(`serviceaccount "${name}" not found`);
        }
      }
      const pause = opts.retryMs?.() ?? 100 + Math.floor(Math.random() * 100);
      await new Promise((r) => setTimeout(r, pause));
    }
  };
  return {
    name: "ServiceAccount",
    async admit(a) {
      const pod = podOf(a);
      if (!pod || a.operation !== "CREATE" || a.subresource) return;
      if (isMirror(pod)) return validateMirror(a, pod);
      const spec = pod.spec as Record<string, unknown>;
      if (!spec.serviceAccountName) spec.serviceAccountName = DEFAULT_SERVICE_ACCOUNT;
      const name = String(spec.serviceAccountName);
      let sa: KubeObject;
      try {
        sa = await lookup(a.namespace, name);
      } catch (err) {
        throw StatusError.forbidden(
          PODS,
          a.name,
          `error looking up service account ${a.namespace}/${name}: ${(err as Error).message}`,
        );
      }
      if (automounts(sa, spec)) mountTokenVolume(spec, apiTokenVolume);
      const pulls = Array.isArray(sa.imagePullSecrets) ? sa.imagePullSecrets : [];
      const own = Array.isArray(spec.imagePullSecrets) ? spec.imagePullSecrets : [];
      if (own.length === 0 && pulls.length > 0) {
        spec.imagePullSecrets = pulls.map((s) => ({ name: (s as { name?: string }).name }));
      }
    },
    validate(a) {
      const pod = podOf(a);
      if (!pod || a.operation !== "CREATE" || a.subresource || !isMirror(pod)) return;
      validateMirror(a, pod);
    },
  };
}

/** The pod of a pods request, with a spec object. */
function podOf(a: Readonly<AdmissionAttributes>): KubeObject | undefined {
  if (a.kind.group !== "" || a.kind.plural !== "pods" || !a.object) return undefined;
  return isObject(a.object.spec) ? a.object : undefined;
}

function isMirror(pod: KubeObject): boolean {
  return pod.metadata.annotations?.[MIRROR_POD_ANNOTATION] !== undefined;
}

/** Whether the token is mounted: the pod's choice, else the account's, else yes. */
function automounts(sa: KubeObject, spec: Record<string, unknown>): boolean {
  if (typeof spec.automountServiceAccountToken === "boolean") {
    return spec.automountServiceAccountToken;
  }
  if (typeof sa.automountServiceAccountToken === "boolean") return sa.automountServiceAccountToken;
  return true;
}

/** A mirror pod may not reference service accounts, secrets or configmaps (kube's messages). */
function validateMirror(a: Readonly<AdmissionAttributes>, pod: KubeObject): void {
  const spec = pod.spec as Record<string, unknown>;
  const forbid = (what: string) => {
    throw StatusError.forbidden(PODS, a.name, `a mirror pod may not reference ${what}`);
  };
  if (spec.serviceAccountName) forbid("service accounts");
  const volumes = Array.isArray(spec.volumes) ? spec.volumes as Record<string, unknown>[] : [];
  for (const v of volumes) {
    if (v.secret) forbid("secrets");
    if (v.configMap) forbid("configmaps");
    const sources = isObject(v.projected) && Array.isArray(v.projected.sources)
      ? v.projected.sources as Record<string, unknown>[]
      : [];
    for (const s of sources) {
      if (s.secret) forbid("secrets");
      if (s.serviceAccountToken) forbid("service accounts");
      if (s.configMap) forbid("configmaps");
    }
  }
}
