/**
 * `--controllers`, as kube-controller-manager reads it: a comma list where `*` turns on every
 * controller that is on by default, `name` turns one on and `-name` turns one off (the more
 * specific entry wins over `*`). Names are kube's (`token-cleaner-controller`) or their old
 * aliases (`tokencleaner`). `bootstrapsigner` and `tokencleaner` are off by default, as in kube;
 * kubeadm starts kube-controller-manager with `--controllers=*,bootstrapsigner,tokencleaner`.
 *
 * @module
 */

/** The controllers this server runs, by kube's name, with kube's alias. */
export const CONTROLLERS: Record<string, { alias: string; disabledByDefault?: boolean }> = {
  "namespace-controller": { alias: "namespace" },
  "node-lifecycle-controller": { alias: "nodelifecycle" },
  "garbage-collector-controller": { alias: "garbagecollector" },
  "disruption-controller": { alias: "disruption" },
  "resourcequota-controller": { alias: "resourcequota" },
  "clusterrole-aggregation-controller": { alias: "clusterrole-aggregation" },
  "certificatesigningrequest-signing-controller": { alias: "csrsigning" },
  "certificatesigningrequest-approving-controller": { alias: "csrapproving" },
  "bootstrap-signer-controller": { alias: "bootstrapsigner", disabledByDefault: true },
  "token-cleaner-controller": { alias: "tokencleaner", disabledByDefault: true },
  "serviceaccount-controller": { alias: "serviceaccount" },
  "root-ca-certificate-publisher-controller": { alias: "root-ca-cert-publisher" },
  "persistentvolumeclaim-protection-controller": { alias: "pvc-protection" },
  "persistentvolume-protection-controller": { alias: "pv-protection" },
  "replicaset-controller": { alias: "replicaset" },
  "replicationcontroller-controller": { alias: "replicationcontroller" },
  "deployment-controller": { alias: "deployment" },
  "endpoints-controller": { alias: "endpoint" },
  "endpointslice-controller": { alias: "endpointslice" },
  "pod-garbage-collector-controller": { alias: "podgc" },
  "endpointslice-mirroring-controller": { alias: "endpointslicemirroring" },
  "validatingadmissionpolicy-status-controller": {
    alias: "validatingadmissionpolicy-status-controller",
  },
  "job-controller": { alias: "job" },
  "cronjob-controller": { alias: "cronjob" },
  "ttl-after-finished-controller": { alias: "ttl-after-finished" },
  "daemonset-controller": { alias: "daemonset" },
  "statefulset-controller": { alias: "statefulset" },
  "taint-eviction-controller": { alias: "taint-eviction-controller" },
};

/** kube-controller-manager's other controllers: accepted in the flag, nothing runs for them. */
const OTHER_KUBE_CONTROLLERS = [
  "serviceaccount-token-controller:serviceaccount-token",
  "horizontal-pod-autoscaler-controller:horizontalpodautoscaling",
  "certificatesigningrequest-cleaner-controller:csrcleaner",
  "ttl-controller:ttl",
  "persistentvolume-binder-controller:persistentvolume-binder",
  "persistentvolume-attach-detach-controller:attachdetach",
  "persistentvolume-expander-controller:persistentvolume-expander",
  "ephemeral-volume-controller:ephemeral-volume",
  "service-lb-controller:service",
  "node-route-controller:route",
  "node-ipam-controller:nodeipam",
  "cloud-node-lifecycle-controller:cloud-node-lifecycle",
  "storageversion-garbage-collector-controller:storage-version-gc",
  "resourceclaim-controller:resource-claim-controller",
  "legacy-serviceaccount-token-cleaner-controller:legacy-service-account-token-cleaner",
  "service-cidr-controller",
  "storageversion-migrator-controller",
  "selinux-warning-controller",
];

/** The canonical name of `name` (a kube name or alias), or undefined when unknown. */
function canonical(name: string): string | undefined {
  if (CONTROLLERS[name]) return name;
  for (const [full, { alias }] of Object.entries(CONTROLLERS)) if (alias === name) return full;
  for (const entry of OTHER_KUBE_CONTROLLERS) {
    const [full, alias] = entry.split(":");
    if (name === full || name === alias) return full;
  }
  return undefined;
}

/** Which controllers run: `enabled(name)` for a canonical name of {@link CONTROLLERS}. */
export interface ControllerSelection {
  enabled(name: keyof typeof CONTROLLERS | string): boolean;
}

/**
 * Parses `--controllers` (default `*`); unknown names go to `errors` with the flag's name.
 */
export function parseControllers(text: string | undefined, errors: string[]): ControllerSelection {
  const on = new Set<string>();
  const off = new Set<string>();
  let star = false;
  for (const raw of (text ?? "*").split(",").map((s) => s.trim()).filter((s) => s !== "")) {
    if (raw === "*") {
      star = true;
      continue;
    }
    const negated = raw.startsWith("-");
    const name = canonical(negated ? raw.slice(1) : raw);
    if (!name) {
      errors.push(`--controllers: ${JSON.stringify(raw)} is not in the list of known controllers`);
      continue;
    }
    (negated ? off : on).add(name);
  }
  return {
    enabled(name) {
      if (off.has(name)) return false;
      if (on.has(name)) return true;
      return star && !CONTROLLERS[name]?.disabledByDefault;
    },
  };
}
