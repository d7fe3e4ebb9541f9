/**
 * Message descriptors of storage.k8s.io/v1beta1 (k8s.io/api/storage/v1beta1), Kubernetes 1.32.
 *
 * Field numbers, wire types and JSON names are the facts of the upstream API types; the table format
 * is ours (see {@link MessageTable}).
 *
 * @module
 */
import type { MessageTable } from "../message_descriptor.ts";

/** Messages of storage.k8s.io/v1beta1 (k8s.io/api/storage/v1beta1). */
export const storageV1beta1Messages: MessageTable = {
  "storage.v1beta1.CSIDriver": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "spec", "storage.v1beta1.CSIDriverSpec"],
  ],
  "storage.v1beta1.CSIDriverList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]storage.v1beta1.CSIDriver"],
  ],
  "storage.v1beta1.CSIDriverSpec": [
    [1, "attachRequired", "bool", 1],
    [2, "podInfoOnMount", "bool", 1],
    [3, "volumeLifecycleModes", "[]string"],
    [4, "storageCapacity", "bool", 1],
    [5, "fsGroupPolicy", "string", 1],
    [6, "tokenRequests", "[]storage.v1beta1.TokenRequest"],
    [7, "requiresRepublish", "bool", 1],
    [8, "seLinuxMount", "bool", 1],
  ],
  "storage.v1beta1.CSINode": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "spec", "storage.v1beta1.CSINodeSpec"],
  ],
  "storage.v1beta1.CSINodeDriver": [
    [1, "name", "string", 1],
    [2, "nodeID", "string", 1],
    [3, "topologyKeys", "[]string"],
    [4, "allocatable", "storage.v1beta1.VolumeNodeResources"],
  ],
  "storage.v1beta1.CSINodeList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]storage.v1beta1.CSINode"],
  ],
  "storage.v1beta1.CSINodeSpec": [
    [1, "drivers", "[]storage.v1beta1.CSINodeDriver"],
  ],
  "storage.v1beta1.CSIStorageCapacity": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "nodeTopology", "meta.v1.LabelSelector"],
    [3, "storageClassName", "string", 1],
    [4, "capacity", "resource.Quantity"],
    [5, "maximumVolumeSize", "resource.Quantity"],
  ],
  "storage.v1beta1.CSIStorageCapacityList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]storage.v1beta1.CSIStorageCapacity"],
  ],
  "storage.v1beta1.StorageClass": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "provisioner", "string", 1],
    [3, "parameters", "map:string"],
    [4, "reclaimPolicy", "string", 1],
    [5, "mountOptions", "[]string"],
    [6, "allowVolumeExpansion", "bool", 1],
    [7, "volumeBindingMode", "string", 1],
    [8, "allowedTopologies", "[]core.v1.TopologySelectorTerm"],
  ],
  "storage.v1beta1.StorageClassList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]storage.v1beta1.StorageClass"],
  ],
  "storage.v1beta1.TokenRequest": [
    [1, "audience", "string", 1],
    [2, "expirationSeconds", "int64", 1],
  ],
  "storage.v1beta1.VolumeAttachment": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "spec", "storage.v1beta1.VolumeAttachmentSpec"],
    [3, "status", "storage.v1beta1.VolumeAttachmentStatus"],
  ],
  "storage.v1beta1.VolumeAttachmentList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]storage.v1beta1.VolumeAttachment"],
  ],
  "storage.v1beta1.VolumeAttachmentSource": [
    [1, "persistentVolumeName", "string", 1],
    [2, "inlineVolumeSpec", "core.v1.PersistentVolumeSpec"],
  ],
  "storage.v1beta1.VolumeAttachmentSpec": [
    [1, "attacher", "string", 1],
    [2, "source", "storage.v1beta1.VolumeAttachmentSource"],
    [3, "nodeName", "string", 1],
  ],
  "storage.v1beta1.VolumeAttachmentStatus": [
    [1, "attached", "bool", 1],
    [2, "attachmentMetadata", "map:string"],
    [3, "attachError", "storage.v1beta1.VolumeError"],
    [4, "detachError", "storage.v1beta1.VolumeError"],
  ],
  "storage.v1beta1.VolumeAttributesClass": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "driverName", "string", 1],
    [3, "parameters", "map:string"],
  ],
  "storage.v1beta1.VolumeAttributesClassList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]storage.v1beta1.VolumeAttributesClass"],
  ],
  "storage.v1beta1.VolumeError": [
    [1, "time", "meta.v1.Time"],
    [2, "message", "string"],
  ],
  "storage.v1beta1.VolumeNodeResources": [
    [1, "count", "int32", 1],
  ],
};
