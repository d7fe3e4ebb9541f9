/**
 * The discovery priorities of the built-in group versions, as kube-apiserver 1.32's
 * apiVersionPriorities table gives them to their local APIServices, and the priority
 * kube's CRD registration gives a custom resource group version.
 *
 * @module
 */

/** A group version's `groupPriorityMinimum` and `versionPriority`. */
export interface ApiServicePriority {
  group: number;
  version: number;
}

/** kube-apiserver 1.32's priorities, by `group/version` (`v1` for the core group). */
const BUILTIN: Readonly<Record<string, ApiServicePriority>> = {
  "v1": { group: 18000, version: 1 },
  "apiregistration.k8s.io/v1": { group: 18000, version: 15 },
  "apps/v1": { group: 17800, version: 15 },
  "events.k8s.io/v1": { group: 17750, version: 15 },
  "authentication.k8s.io/v1": { group: 17700, version: 15 },
  "authorization.k8s.io/v1": { group: 17600, version: 15 },
  "autoscaling/v1": { group: 17500, version: 15 },
  "autoscaling/v2": { group: 17500, version: 30 },
  "batch/v1": { group: 17400, version: 15 },
  "certificates.k8s.io/v1": { group: 17300, version: 15 },
  "certificates.k8s.io/v1alpha1": { group: 17300, version: 1 },
  "networking.k8s.io/v1": { group: 17200, version: 15 },
  "policy/v1": { group: 17100, version: 15 },
  "rbac.authorization.k8s.io/v1": { group: 17000, version: 15 },
  "storage.k8s.io/v1": { group: 16800, version: 15 },
  "storage.k8s.io/v1beta1": { group: 16800, version: 9 },
  "storage.k8s.io/v1alpha1": { group: 16800, version: 1 },
  "apiextensions.k8s.io/v1": { group: 16700, version: 15 },
  "admissionregistration.k8s.io/v1": { group: 16700, version: 15 },
  "admissionregistration.k8s.io/v1beta1": { group: 16700, version: 12 },
  "admissionregistration.k8s.io/v1alpha1": { group: 16700, version: 9 },
  "scheduling.k8s.io/v1": { group: 16600, version: 15 },
  "coordination.k8s.io/v1": { group: 16500, version: 15 },
  "coordination.k8s.io/v1alpha2": { group: 16500, version: 1 },
  "node.k8s.io/v1": { group: 16300, version: 15 },
  "discovery.k8s.io/v1": { group: 16200, version: 15 },
  "resource.k8s.io/v1beta1": { group: 16200, version: 9 },
  "resource.k8s.io/v1alpha3": { group: 16200, version: 1 },
  "flowcontrol.apiserver.k8s.io/v1": { group: 16100, version: 21 },
  // metrics-server's APIService (served locally here).
  "metrics.k8s.io/v1beta1": { group: 100, version: 100 },
};

/** What kube's CRD registration gives a custom resource's group version. */
export const CUSTOM_RESOURCE_PRIORITY: ApiServicePriority = { group: 1000, version: 100 };

/** The priority of a built-in group version, or undefined for one kube does not list. */
export function builtinPriority(group: string, version: string): ApiServicePriority | undefined {
  return BUILTIN[group ? `${group}/${version}` : version];
}
