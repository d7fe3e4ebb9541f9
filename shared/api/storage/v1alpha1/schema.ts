/**
 * The schema declaration of storage.k8s.io/v1alpha1 as this server serves it (off by default):
 * VolumeAttributesClass.
 *
 * @module
 */
import type { GroupSchema } from "../../schema/group_schema.ts";

/** storage.k8s.io/v1alpha1. */
export const storageV1alpha1Schema: GroupSchema = {
  package: "storage.v1alpha1",
  group: "storage.k8s.io",
  version: "v1alpha1",
  openApiPrefix: "io.k8s.api.storage.v1alpha1",
  kinds: ["VolumeAttributesClass", "VolumeAttributesClassList"],
  types: {
    VolumeAttributesClass: {
      description:
        "A class of mutable volume attributes a CSI driver applies (the driver and its " +
        "parameters never change once the class exists).",
      documentedRequired: ["driverName"],
      fields: {
        driverName: { description: "The CSI driver's name." },
        parameters: { description: "Driver-specific key-value parameters; at least one." },
      },
    },
    VolumeAttributesClassList: { required: ["items"] },
  },
};
