/**
 * The root-ca-cert-publisher of kube-controller-manager: every active namespace has the
 * `kube-root-ca.crt` ConfigMap holding the cluster CA (`ca.crt`), which the service account
 * token volume of pods projects, created with the namespace and again if deleted. It is not
 * rewritten when it differs: API servers sharing a database may each have generated their own
 * CA, and the first one's stays (kube runs one controller manager, elected).
 *
 * @module
 */
import type { Logger } from "../../shared/log/mod.ts";
import type { ResourceRegistry } from "../registry/resource_registry.ts";
import type { ChangeFeed } from "../watch/change_feed.ts";
import { NamespaceObjectController } from "./namespace_object_controller.ts";

/** The ConfigMap's name. */
export const ROOT_CA_CONFIGMAP = "kube-root-ca.crt";

/** kube's description annotation of the ConfigMap. */
const DESCRIPTION =
  "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.";

/** Builds the publisher of `caPem` (start it once the registry is served). */
export function rootCaCertPublisher(
  deps: { registry: ResourceRegistry; feed: ChangeFeed; caPem: string; logger?: Logger },
): NamespaceObjectController {
  const { registry } = deps;
  const data = { "ca.crt": deps.caPem };
  const annotations = { "kubernetes.io/description": DESCRIPTION };
  return new NamespaceObjectController({
    name: "root-ca-cert-publisher",
    namespaces: () => registry.lookup("", "v1", "namespaces")!,
    objects: () => registry.lookup("", "v1", "configmaps")!,
    objectName: ROOT_CA_CONFIGMAP,
    desired: () => ({ metadata: { name: ROOT_CA_CONFIGMAP, annotations }, data: { ...data } }),
    feed: deps.feed,
    logger: deps.logger,
  });
}
