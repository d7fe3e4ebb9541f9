/**
 * Message descriptors of storage.k8s.io/v1alpha1 (k8s.io/api/storage/v1alpha1), Kubernetes 1.32.
 *
 * Field numbers, wire types and JSON names are the facts of the upstream API types; the table format
 * is ours (see {@link MessageTable}).
 *
 * @module
 */
import type { MessageTable } from "../message_descriptor.ts";

/** Messages of storage.k8s.io/v1alpha1 (k8s.io/api/storage/v1alpha1). */
export const storageV1alpha1Messages: MessageTable = {
  "storage.v1alpha1.CSIStorageCapacity": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "nodeTopology", "meta.v1.LabelSelector"],
    [3, "storageClassName", "string", 1],
    [4, "capacity", "resource.Quantity"],
    [5, "maximumVolumeSize", "resource.Quantity"],
  ],
  "storage.v1alpha1.CSIStorageCapacityList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]storage.v1alpha1.CSIStorageCapacity"],
  ],
  "storage.v1alpha1.VolumeAttachment": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "spec", "storage.v1alpha1.VolumeAttachmentSpec"],
    [3, "status", "storage.v1alpha1.VolumeAttachmentStatus"],
  ],
  "storage.v1alpha1.VolumeAttachmentList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]storage.v1alpha1.VolumeAttachment"],
  ],
  "storage.v1alpha1.VolumeAttachmentSource": [
    [1, "persistentVolumeName", "string", 1],
    [2, "inlineVolumeSpec", "core.v1.PersistentVolumeSpec"],
  ],
  "storage.v1alpha1.VolumeAttachmentSpec": [
    [1, "attacher", "string", 1],
    [2, "source", "storage.v1alpha1.VolumeAttachmentSource"],
    [3, "nodeName", "string", 1],
  ],
  "storage.v1alpha1.VolumeAttachmentStatus": [
    [1, "attached", "bool", 1],
    [2, "attachmentMetadata", "map:string"],
    [3, "attachError", "storage.v1alpha1.VolumeError"],
    [4, "detachError", "storage.v1alpha1.VolumeError"],
  ],
  "storage.v1alpha1.VolumeAttributesClass": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "driverName", "string", 1],
    [3, "parameters", "map:string"],
  ],
  "storage.v1alpha1.VolumeAttributesClassList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]storage.v1alpha1.VolumeAttributesClass"],
  ],
  "storage.v1alpha1.VolumeError": [
    [1, "time", "meta.v1.Time"],
    [2, "message", "string"],
  ],
};
