/**
 * example.com Widgets in two versions for the custom resource version tests: v2 the storage
 * version, v1 deprecated, registered as the CRD builder registers a CRD's versions.
 *
 * @module
 */
import { customResourceConverter } from "../../apiserver/registry/apiextensions/conversion/custom_resource_converter.ts";
import { servedVersionKinds } from "../../apiserver/registry/apiextensions/conversion/served_version_kinds.ts";
import {
  CUSTOM_RESOURCE_PATCH_TYPES,
  type KindDef,
  STATUS_SUBRESOURCE,
} from "../../apiserver/registry/generic/kind.ts";
import type { WebhookClient } from "../../apiserver/webhook/webhook_client.ts";
import type { CustomResourceDefinition } from "../../shared/api/apiextensions/v1/types.ts";
import type { TestServer } from "./test_server.ts";

/** The Widget CRD (v1 deprecated, v2 storage) with `conversion`. */
export function crdOf(conversion: CustomResourceDefinition["spec"]["conversion"]) {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "widgets.example.com" },
    spec: {
      group: "example.com",
      names: { plural: "widgets", kind: "Widget" },
      scope: "Namespaced",
      versions: [
        { name: "v1", served: true, storage: false, deprecated: true },
        { name: "v2", served: true, storage: true },
      ],
      conversion,
    },
  } as CustomResourceDefinition;
}

/** The KindDef of one Widget version, as the CRD builder would make it. */
export function widgetKind(version: string): KindDef {
  return {
    group: "example.com",
    version,
    kind: "Widget",
    plural: "widgets",
    singular: "widget",
    namespaced: true,
    patchTypes: CUSTOM_RESOURCE_PATCH_TYPES,
    returnDeletedObject: true,
    subresources: [STATUS_SUBRESOURCE],
    strategy: { validate: () => [] },
  };
}

/** Registers v2 (storage, served from itself) and deprecated v1, converted by `crd`'s strategy. */
export function serveWidgets(s: TestServer, crd: CustomResourceDefinition, client?: WebhookClient) {
  const conv = customResourceConverter(crd, { webhooks: client });
  const kinds = servedVersionKinds(crd, conv, widgetKind);
  if (kinds.unservedStorage) s.server.registry.addUnserved(kinds.unservedStorage);
  for (const def of kinds.served) s.server.registry.add(def);
  return kinds;
}
