/**
 * The schema declaration of storage.k8s.io/v1 (StorageClass, CSIDriver, CSINode,
 * CSIStorageCapacity, VolumeAttachment): required fields, enums, defaults and the list and map
 * types of Kubernetes' OpenAPI.
 *
 * @module
 */
import { ATOMIC_LIST, type GroupSchema, mergeList } from "../../schema/group_schema.ts";

/** storage.k8s.io/v1. */
export const storageV1Schema: GroupSchema = {
  package: "storage.v1",
  group: "storage.k8s.io",
  version: "v1",
  openApiPrefix: "io.k8s.api.storage.v1",
  kinds: [
    "StorageClass",
    "StorageClassList",
    "CSIDriver",
    "CSIDriverList",
    "CSINode",
    "CSINodeList",
    "CSIStorageCapacity",
    "CSIStorageCapacityList",
    "VolumeAttachment",
    "VolumeAttachmentList",
  ],
  types: {
    StorageClass: {
      description: "StorageClass describes the parameters for a class of storage for which " +
        "PersistentVolumes can be dynamically provisioned.",
      required: ["provisioner"],
      fields: {
        provisioner: { description: "The volume plugin used to provision volumes." },
        parameters: { description: "Parameters for the provisioner (immutable)." },
        reclaimPolicy: {
          description: "The reclaim policy of dynamically provisioned volumes.",
          enum: ["Delete", "Recycle", "Retain"],
          default: "Delete",
        },
        mountOptions: ATOMIC_LIST,
        volumeBindingMode: {
          description: "When volumes are provisioned and bound.",
          enum: ["Immediate", "WaitForFirstConsumer"],
          default: "Immediate",
        },
        allowedTopologies: ATOMIC_LIST,
      },
    },
    StorageClassList: { required: ["items"] },
    CSIDriver: {
      description:
        "CSIDriver captures information about a CSI volume driver deployed on the cluster.",
    },
    CSIDriverList: { required: ["items"] },
    CSIDriverSpec: {
      fields: {
        attachRequired: { default: true },
        podInfoOnMount: { default: false },
        volumeLifecycleModes: { listType: "set" },
        storageCapacity: { default: false },
        fsGroupPolicy: {
          enum: ["File", "None", "ReadWriteOnceWithFSType"],
          default: "ReadWriteOnceWithFSType",
        },
        tokenRequests: ATOMIC_LIST,
        requiresRepublish: { default: false },
        seLinuxMount: { default: false },
      },
    },
    CSINode: {
      description: "CSINode holds information about all CSI drivers installed on a node.",
    },
    CSINodeList: { required: ["items"] },
    CSINodeSpec: { fields: { drivers: mergeList("name") } },
    CSINodeDriver: { required: ["name", "nodeID"], fields: { topologyKeys: ATOMIC_LIST } },
    CSIStorageCapacity: {
      description:
        "CSIStorageCapacity stores the result of one CSI GetCapacity call for a storage class " +
        "in a topology segment.",
    },
    CSIStorageCapacityList: { required: ["items"] },
    VolumeAttachment: {
      description:
        "VolumeAttachment captures the intent to attach or detach the specified volume to or " +
        "from the specified node.",
    },
    VolumeAttachmentList: { required: ["items"] },
    VolumeAttachmentSpec: { required: ["attacher"] },
    VolumeAttachmentStatus: { required: ["attached"] },
  },
};
