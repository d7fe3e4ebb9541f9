/**
 * Message descriptors of resource.k8s.io/v1beta1 (k8s.io/api/resource/v1beta1), Kubernetes 1.32.
 *
 * Field numbers, wire types and JSON names are the facts of the upstream API types; the table format
 * is ours (see {@link MessageTable}).
 *
 * @module
 */
import type { MessageTable } from "../message_descriptor.ts";

/** Messages of resource.k8s.io/v1beta1 (k8s.io/api/resource/v1beta1). */
export const resourceV1beta1Messages: MessageTable = {
  "resource.v1beta1.AllocatedDeviceStatus": [
    [1, "driver", "string", 1],
    [2, "pool", "string", 1],
    [3, "device", "string", 1],
    [4, "conditions", "[]meta.v1.Condition"],
    [5, "data", "runtime.RawExtension"],
    [6, "networkData", "resource.v1beta1.NetworkDeviceData"],
  ],
  "resource.v1beta1.AllocationResult": [
    [1, "devices", "resource.v1beta1.DeviceAllocationResult"],
    [3, "nodeSelector", "core.v1.NodeSelector"],
  ],
  "resource.v1beta1.BasicDevice": [
    [1, "attributes", "map:resource.v1beta1.DeviceAttribute"],
    [2, "capacity", "map:resource.v1beta1.DeviceCapacity"],
  ],
  "resource.v1beta1.CELDeviceSelector": [
    [1, "expression", "string", 1],
  ],
  "resource.v1beta1.Device": [
    [1, "name", "string", 1],
    [2, "basic", "resource.v1beta1.BasicDevice"],
  ],
  "resource.v1beta1.DeviceAllocationConfiguration": [
    [1, "source", "string", 1],
    [2, "requests", "[]string"],
    [3, "deviceConfiguration", "resource.v1beta1.DeviceConfiguration", 2],
  ],
  "resource.v1beta1.DeviceAllocationResult": [
    [1, "results", "[]resource.v1beta1.DeviceRequestAllocationResult"],
    [2, "config", "[]resource.v1beta1.DeviceAllocationConfiguration"],
  ],
  "resource.v1beta1.DeviceAttribute": [
    [2, "int", "int64", 1],
    [3, "bool", "bool", 1],
    [4, "string", "string", 1],
    [5, "version", "string", 1],
  ],
  "resource.v1beta1.DeviceCapacity": [
    [1, "value", "resource.Quantity"],
  ],
  "resource.v1beta1.DeviceClaim": [
    [1, "requests", "[]resource.v1beta1.DeviceRequest"],
    [2, "constraints", "[]resource.v1beta1.DeviceConstraint"],
    [3, "config", "[]resource.v1beta1.DeviceClaimConfiguration"],
  ],
  "resource.v1beta1.DeviceClaimConfiguration": [
    [1, "requests", "[]string"],
    [2, "deviceConfiguration", "resource.v1beta1.DeviceConfiguration", 2],
  ],
  "resource.v1beta1.DeviceClass": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "spec", "resource.v1beta1.DeviceClassSpec"],
  ],
  "resource.v1beta1.DeviceClassConfiguration": [
    [1, "deviceConfiguration", "resource.v1beta1.DeviceConfiguration", 2],
  ],
  "resource.v1beta1.DeviceClassList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]resource.v1beta1.DeviceClass"],
  ],
  "resource.v1beta1.DeviceClassSpec": [
    [1, "selectors", "[]resource.v1beta1.DeviceSelector"],
    [2, "config", "[]resource.v1beta1.DeviceClassConfiguration"],
  ],
  "resource.v1beta1.DeviceConfiguration": [
    [1, "opaque", "resource.v1beta1.OpaqueDeviceConfiguration"],
  ],
  "resource.v1beta1.DeviceConstraint": [
    [1, "requests", "[]string"],
    [2, "matchAttribute", "string", 1],
  ],
  "resource.v1beta1.DeviceRequest": [
    [1, "name", "string", 1],
    [2, "deviceClassName", "string", 1],
    [3, "selectors", "[]resource.v1beta1.DeviceSelector"],
    [4, "allocationMode", "string"],
    [5, "count", "int64"],
    [6, "adminAccess", "bool", 1],
  ],
  "resource.v1beta1.DeviceRequestAllocationResult": [
    [1, "request", "string", 1],
    [2, "driver", "string", 1],
    [3, "pool", "string", 1],
    [4, "device", "string", 1],
    [5, "adminAccess", "bool", 1],
  ],
  "resource.v1beta1.DeviceSelector": [
    [1, "cel", "resource.v1beta1.CELDeviceSelector"],
  ],
  "resource.v1beta1.NetworkDeviceData": [
    [1, "interfaceName", "string"],
    [2, "ips", "[]string"],
    [3, "hardwareAddress", "string"],
  ],
  "resource.v1beta1.OpaqueDeviceConfiguration": [
    [1, "driver", "string", 1],
    [2, "parameters", "runtime.RawExtension"],
  ],
  "resource.v1beta1.ResourceClaim": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "spec", "resource.v1beta1.ResourceClaimSpec"],
    [3, "status", "resource.v1beta1.ResourceClaimStatus"],
  ],
  "resource.v1beta1.ResourceClaimConsumerReference": [
    [1, "apiGroup", "string"],
    [3, "resource", "string", 1],
    [4, "name", "string", 1],
    [5, "uid", "string", 1],
  ],
  "resource.v1beta1.ResourceClaimList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]resource.v1beta1.ResourceClaim"],
  ],
  "resource.v1beta1.ResourceClaimSpec": [
    [1, "devices", "resource.v1beta1.DeviceClaim"],
  ],
  "resource.v1beta1.ResourceClaimStatus": [
    [1, "allocation", "resource.v1beta1.AllocationResult"],
    [2, "reservedFor", "[]resource.v1beta1.ResourceClaimConsumerReference"],
    [4, "devices", "[]resource.v1beta1.AllocatedDeviceStatus"],
  ],
  "resource.v1beta1.ResourceClaimTemplate": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "spec", "resource.v1beta1.ResourceClaimTemplateSpec"],
  ],
  "resource.v1beta1.ResourceClaimTemplateList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]resource.v1beta1.ResourceClaimTemplate"],
  ],
  "resource.v1beta1.ResourceClaimTemplateSpec": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "spec", "resource.v1beta1.ResourceClaimSpec"],
  ],
  "resource.v1beta1.ResourcePool": [
    [1, "name", "string", 1],
    [2, "generation", "int64", 1],
    [3, "resourceSliceCount", "int64", 1],
  ],
  "resource.v1beta1.ResourceSlice": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "spec", "resource.v1beta1.ResourceSliceSpec"],
  ],
  "resource.v1beta1.ResourceSliceList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]resource.v1beta1.ResourceSlice"],
  ],
  "resource.v1beta1.ResourceSliceSpec": [
    [1, "driver", "string", 1],
    [2, "pool", "resource.v1beta1.ResourcePool"],
    [3, "nodeName", "string"],
    [4, "nodeSelector", "core.v1.NodeSelector"],
    [5, "allNodes", "bool"],
    [6, "devices", "[]resource.v1beta1.Device"],
  ],
};
