/**
 * kube-apiserver 1.32's admission plugins by name: their order (AllOrderedPlugins in
 * pkg/kubeapiserver/options/plugins.go), the set on by default (the complement of
 * DefaultOffAdmissionPlugins), and which of them this server implements.
 *
 * @module
 */
import type { AdmissionPlugin } from "../registry/generic/admission.ts";

/** Every plugin kube-apiserver 1.32 knows, in the order the chain runs them. */
export const ALL_ORDERED_PLUGINS = [
  "AlwaysAdmit",
  "NamespaceAutoProvision",
  "NamespaceLifecycle",
  "NamespaceExists",
  "LimitPodHardAntiAffinityTopology",
  "LimitRanger",
  "ServiceAccount",
  "NodeRestriction",
  "TaintNodesByCondition",
  "AlwaysPullImages",
  "ImagePolicyWebhook",
  "PodSecurity",
  "PodNodeSelector",
  "Priority",
  "DefaultTolerationSeconds",
  "PodTolerationRestriction",
  "EventRateLimit",
  "ExtendedResourceToleration",
  "DefaultStorageClass",
  "StorageObjectInUseProtection",
  "OwnerReferencesPermissionEnforcement",
  "PersistentVolumeClaimResize",
  "RuntimeClass",
  "CertificateApproval",
  "CertificateSigning",
  "ClusterTrustBundleAttest",
  "CertificateSubjectRestriction",
  "DefaultIngressClass",
  "DenyServiceExternalIPs",
  // webhook, policy, quota and deny plugins go last
  "MutatingAdmissionPolicy",
  "MutatingAdmissionWebhook",
  "ValidatingAdmissionPolicy",
  "ValidatingAdmissionWebhook",
  "ResourceQuota",
  "AlwaysDeny",
] as const;

/** A plugin name kube-apiserver 1.32 knows. */
export type PluginName = typeof ALL_ORDERED_PLUGINS[number];

/** The plugins kube-apiserver 1.32 runs when no flag says otherwise. */
export const DEFAULT_ON_PLUGINS: ReadonlySet<PluginName> = new Set<PluginName>([
  "NamespaceLifecycle",
  "LimitRanger",
  "ServiceAccount",
  "DefaultStorageClass",
  "PersistentVolumeClaimResize",
  "DefaultTolerationSeconds",
  "MutatingAdmissionWebhook",
  "ValidatingAdmissionWebhook",
  "ResourceQuota",
  "StorageObjectInUseProtection",
  "Priority",
  "TaintNodesByCondition",
  "RuntimeClass",
  "CertificateApproval",
  "CertificateSigning",
  "ClusterTrustBundleAttest",
  "CertificateSubjectRestriction",
  "DefaultIngressClass",
  "PodSecurity",
  "MutatingAdmissionPolicy",
  "ValidatingAdmissionPolicy",
]);

/**
 * Known plugins this server does not implement. Naming one in `--enable-admission-plugins` is
 * an error ("not supported"), never silently accepted; disabling one is allowed (it does
 * nothing), and a default-on one missing here is simply absent from the chain. A plugin leaves
 * this list when its factory is wired in server.ts.
 */
export const UNSUPPORTED_PLUGINS = [
  "NamespaceAutoProvision",
  "NamespaceExists",
  "LimitPodHardAntiAffinityTopology",
  "AlwaysPullImages",
  "ImagePolicyWebhook",
  "PodNodeSelector",
  "PodTolerationRestriction",
  "EventRateLimit",
  "ExtendedResourceToleration",
  "OwnerReferencesPermissionEnforcement",
  "ClusterTrustBundleAttest",
  "DenyServiceExternalIPs",
  "MutatingAdmissionPolicy",
] as const satisfies readonly PluginName[];

/** A plugin this server implements (each has a factory in server.ts). */
export type SupportedPluginName = Exclude<PluginName, typeof UNSUPPORTED_PLUGINS[number]>;

/** Whether `name` is a plugin kube-apiserver 1.32 knows. */
export function isPluginName(name: string): name is PluginName {
  return (ALL_ORDERED_PLUGINS as readonly string[]).includes(name);
}

/**
 * The enabled plugins in chain order, as kube's enabledPluginNames: the default set plus
 * `enable`, minus `disable` (a plugin in both lists is an error found by validation).
 */
export function enabledPluginNames(
  enable: readonly string[],
  disable: readonly string[],
): PluginName[] {
  return ALL_ORDERED_PLUGINS.filter((name) =>
    enable.includes(name) || (DEFAULT_ON_PLUGINS.has(name) && !disable.includes(name))
  );
}

/**
 * The problems of `--enable-admission-plugins` and `--disable-admission-plugins`, with kube's
 * messages (unknown names, a name in both lists), and this server's for a known plugin it
 * does not implement.
 */
export function admissionFlagErrors(
  enable: readonly string[],
  disable: readonly string[],
): string[] {
  const errors: string[] = [];
  for (const name of enable) {
    if (!isPluginName(name)) errors.push(`enable-admission-plugins plugin "${name}" is unknown`);
    else if ((UNSUPPORTED_PLUGINS as readonly string[]).includes(name)) {
      errors.push(`enable-admission-plugins plugin "${name}" is not supported by this server`);
    }
  }
  for (const name of disable) {
    if (!isPluginName(name)) errors.push(`disable-admission-plugins plugin "${name}" is unknown`);
  }
  const both = [...new Set(enable.filter((n) => disable.includes(n)))].sort();
  if (both.length > 0) {
    errors.push(
      `[${both.join(" ")}] in enable-admission-plugins and disable-admission-plugins overlapped`,
    );
  }
  return errors;
}

/** A factory of each plugin this server implements, given its dependencies by server.ts. */
export type AdmissionPluginFactories = Record<SupportedPluginName, () => AdmissionPlugin>;

/** The plugins of `names` (in that order) that this server implements, built. */
export function buildAdmissionPlugins(
  names: readonly PluginName[],
  factories: AdmissionPluginFactories,
): AdmissionPlugin[] {
  return names.flatMap((name) =>
    Object.hasOwn(factories, name) ? [factories[name as SupportedPluginName]()] : []
  );
}
