/**
 * The root-ca-cert-publisher of kube-controller-manager: every active namespace has the
 * `kube-root-ca.crt` ConfigMap holding the cluster CA (`ca.crt`), which the service account
 * token volume of pods projects; a ConfigMap that drifts from it is put back.
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { deepEqual } from "../../shared/json/deep_equal.ts";
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
    repair(current: KubeObject) {
      const own = current.metadata.annotations ?? {};
      if (deepEqual(current.data, data) && own["kubernetes.io/description"] === DESCRIPTION) {
        return undefined;
      }
      current.data = { ...data };
      delete current.binaryData;
      current.metadata.annotations = { ...own, ...annotations };
      return current;
    },
    feed: deps.feed,
    logger: deps.logger,
  });
}
