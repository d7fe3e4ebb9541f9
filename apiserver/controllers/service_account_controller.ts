/**
 * The serviceaccounts controller of kube-controller-manager: every active namespace has the
 * `default` ServiceAccount (created with the namespace, and again if deleted).
 *
 * @module
 */
import type { Logger } from "../../shared/log/mod.ts";
import type { ResourceRegistry } from "../registry/resource_registry.ts";
import type { ChangeFeed } from "../watch/change_feed.ts";
import { NamespaceObjectController } from "./namespace_object_controller.ts";

/** Builds the controller (start it once the registry is served). */
export function serviceAccountController(
  deps: { registry: ResourceRegistry; feed: ChangeFeed; logger?: Logger },
): NamespaceObjectController {
  const { registry } = deps;
  return new NamespaceObjectController({
    name: "serviceaccounts controller",
    namespaces: () => registry.lookup("", "v1", "namespaces")!,
    objects: () => registry.lookup("", "v1", "serviceaccounts")!,
    objectName: "default",
    desired: () => ({ metadata: { name: "default" } }),
    feed: deps.feed,
    logger: deps.logger,
  });
}
