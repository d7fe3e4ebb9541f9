import { storageV1Messages } from "../../../../shared/codec/protobuf/schema/storage_v1.ts";
import { groupTableChecks } from "./_group_table_checks.ts";

groupTableChecks({
  messagesName: "storageV1Messages",
  messages: storageV1Messages,
  gv: "storage.k8s.io/v1",
  // [message, json, number, keepZero], read from storage/v1 generated.proto and types.go (v0.32).
  fields: [
    ["storage.v1.StorageClass", "volumeBindingMode", 7, true],
    ["storage.v1.StorageClass", "allowedTopologies", 8, false],
    ["storage.v1.CSIDriverSpec", "seLinuxMount", 8, true],
    ["storage.v1.CSIDriverSpec", "tokenRequests", 6, false],
    ["storage.v1.CSINodeDriver", "allocatable", 4, false],
    ["storage.v1.CSIStorageCapacity", "maximumVolumeSize", 5, false],
    ["storage.v1.VolumeAttachmentStatus", "detachError", 4, false],
    ["storage.v1.VolumeAttachmentSource", "inlineVolumeSpec", 2, false],
    ["storage.v1.VolumeNodeResources", "count", 1, true],
  ],
  kinds: [
    "StorageClass",
    "StorageClassList",
    "VolumeAttachment",
    "VolumeAttachmentList",
    "CSINode",
    "CSINodeList",
    "CSIDriver",
    "CSIDriverList",
    "CSIStorageCapacity",
    "CSIStorageCapacityList",
    "Status",
    "DeleteOptions",
  ],
  fixture: "storage_v1.json",
});
