/**
 * The service account token volume kube's ServiceAccount plugin adds to pods: the projected
 * `kube-api-access-<5 random>` volume (a bound token valid 3607 s, `ca.crt` from the
 * `kube-root-ca.crt` ConfigMap, the namespace from the downward API), mounted read-only at
 * /var/run/secrets/kubernetes.io/serviceaccount in every container and init container that
 * has nothing mounted there.
 *
 * @module
 */

/** Where containers find the token, the CA and the namespace. */
export const API_TOKEN_MOUNT_PATH = "/var/run/secrets/kubernetes.io/serviceaccount";
/** The prefix of the volume's name. */
export const API_ACCESS_VOLUME_PREFIX = "kube-api-access-";
/** The token's requested lifetime (kube's WarnOnlyBoundTokenExpirationSeconds). */
export const TOKEN_EXPIRATION_SECONDS = 3607;
/** The ConfigMap the root-ca-cert-publisher keeps in every namespace. */
export const ROOT_CA_CONFIGMAP = "kube-root-ca.crt";

/** The characters of kube's random name suffixes (no vowels, no confusable digits). */
const ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789";

/** A random 5-character suffix, as kube's SimpleNameGenerator. */
export function randomSuffix(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(5));
  return [...bytes].map((b) => ALPHANUMS[b % ALPHANUMS.length]).join("");
}

/** The projected volume named `name`. */
export function apiTokenVolume(name: string): Record<string, unknown> {
  return {
    name,
    projected: {
      defaultMode: 0o644,
      sources: [
        { serviceAccountToken: { expirationSeconds: TOKEN_EXPIRATION_SECONDS, path: "token" } },
        {
          configMap: { name: ROOT_CA_CONFIGMAP, items: [{ key: "ca.crt", path: "ca.crt" }] },
        },
        {
          downwardAPI: {
            items: [{
              path: "namespace",
              fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" },
            }],
          },
        },
      ],
    },
  };
}

type Container = { volumeMounts?: Record<string, unknown>[] };

/**
 * Mounts the token volume in every container and init container of `spec` that has nothing
 * at the mount path, adding the volume (`make(name)`) when one is mounted and the pod does not
 * have one already.
 */
export function mountTokenVolume(
  spec: Record<string, unknown>,
  make: (name: string) => Record<string, unknown>,
): void {
  const volumes = Array.isArray(spec.volumes) ? spec.volumes as Record<string, unknown>[] : [];
  const existing = volumes.find((v) => String(v.name ?? "").startsWith(API_ACCESS_VOLUME_PREFIX));
  const name = existing ? String(existing.name) : API_ACCESS_VOLUME_PREFIX + randomSuffix();
  let needed = false;
  for (const key of ["initContainers", "containers"]) {
    const containers = Array.isArray(spec[key]) ? spec[key] as Container[] : [];
    for (const c of containers) {
      const mounts = c.volumeMounts ?? [];
      if (mounts.some((m) => m.mountPath === API_TOKEN_MOUNT_PATH)) continue;
      c.volumeMounts = [...mounts, { name, readOnly: true, mountPath: API_TOKEN_MOUNT_PATH }];
      needed = true;
    }
  }
  if (!existing && needed) spec.volumes = [...volumes, make(name)];
}
