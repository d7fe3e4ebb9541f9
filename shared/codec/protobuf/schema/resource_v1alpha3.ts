/**
 * Message descriptors of resource.k8s.io/v1alpha3 (k8s.io/api/resource/v1alpha3), Kubernetes 1.32.
 *
 * Field numbers, wire types and JSON names are the facts of the upstream API types; the table format
 * is ours (see {@link MessageTable}).
 *
 * @module
 */
import type { MessageTable } from "../message_descriptor.ts";

/** Messages of resource.k8s.io/v1alpha3 (k8s.io/api/resource/v1alpha3). */
export const resourceV1alpha3Messages: MessageTable = {
  "resource.v1alpha3.AllocatedDeviceStatus": [
    [1, "driver", "string", 1],
    [2, "pool", "string", 1],
    [3, "device", "string", 1],
    [4, "conditions", "[]meta.v1.Condition"],
    [5, "data", "runtime.RawExtension"],
    [6, "networkData", "resource.v1alpha3.NetworkDeviceData"],
  ],
  "resource.v1alpha3.AllocationResult": [
    [1, "devices", "resource.v1alpha3.DeviceAllocationResult"],
    [3, "nodeSelector", "core.v1.NodeSelector"],
  ],
  "resource.v1alpha3.BasicDevice": [
    [1, "attributes", "map:resource.v1alpha3.DeviceAttribute"],
    [2, "capacity", "map:resource.Quantity"],
  ],
  "resource.v1alpha3.CELDeviceSelector": [
    [1, "expression", "string", 1],
  ],
  "resource.v1alpha3.Device": [
    [1, "name", "string", 1],
    [2, "basic", "resource.v1alpha3.BasicDevice"],
  ],
  "resource.v1alpha3.DeviceAllocationConfiguration": [
    [1, "source", "string", 1],
    [2, "requests", "[]string"],
    [3, "deviceConfiguration", "resource.v1alpha3.DeviceConfiguration", 2],
  ],
  "resource.v1alpha3.DeviceAllocationResult": [
    [1, "results", "[]resource.v1alpha3.DeviceRequestAllocationResult"],
    [2, "config", "[]resource.v1alpha3.DeviceAllocationConfiguration"],
  ],
  "resource.v1alpha3.DeviceAttribute": [
    [2, "int", "int64", 1],
    [3, "bool", "bool", 1],
    [4, "string", "string", 1],
    [5, "version", "string", 1],
  ],
  "resource.v1alpha3.DeviceClaim": [
    [1, "requests", "[]resource.v1alpha3.DeviceRequest"],
    [2, "constraints", "[]resource.v1alpha3.DeviceConstraint"],
    [3, "config", "[]resource.v1alpha3.DeviceClaimConfiguration"],
  ],
  "resource.v1alpha3.DeviceClaimConfiguration": [
    [1, "requests", "[]string"],
    [2, "deviceConfiguration", "resource.v1alpha3.DeviceConfiguration", 2],
  ],
  "resource.v1alpha3.DeviceClass": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "spec", "resource.v1alpha3.DeviceClassSpec"],
  ],
  "resource.v1alpha3.DeviceClassConfiguration": [
    [1, "deviceConfiguration", "resource.v1alpha3.DeviceConfiguration", 2],
  ],
  "resource.v1alpha3.DeviceClassList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]resource.v1alpha3.DeviceClass"],
  ],
  "resource.v1alpha3.DeviceClassSpec": [
    [1, "selectors", "[]resource.v1alpha3.DeviceSelector"],
    [2, "config", "[]resource.v1alpha3.DeviceClassConfiguration"],
  ],
  "resource.v1alpha3.DeviceConfiguration": [
    [1, "opaque", "resource.v1alpha3.OpaqueDeviceConfiguration"],
  ],
  "resource.v1alpha3.DeviceConstraint": [
    [1, "requests", "[]string"],
    [2, "matchAttribute", "string", 1],
  ],
  "resource.v1alpha3.DeviceRequest": [
    [1, "name", "string", 1],
    [2, "deviceClassName", "string", 1],
    [3, "selectors", "[]resource.v1alpha3.DeviceSelector"],
    [4, "allocationMode", "string"],
    [5, "count", "int64"],
    [6, "adminAccess", "bool", 1],
  ],
  "resource.v1alpha3.DeviceRequestAllocationResult": [
    [1, "request", "string", 1],
    [2, "driver", "string", 1],
    [3, "pool", "string", 1],
    [4, "device", "string", 1],
    [5, "adminAccess", "bool", 1],
  ],
  "resource.v1alpha3.DeviceSelector": [
    [1, "cel", "resource.v1alpha3.CELDeviceSelector"],
  ],
  "resource.v1alpha3.NetworkDeviceData": [
    [1, "interfaceName", "string"],
    [2, "ips", "[]string"],
    [3, "hardwareAddress", "string"],
  ],
  "resource.v1alpha3.OpaqueDeviceConfiguration": [
    [1, "driver", "string", 1],
    [2, "parameters", "runtime.RawExtension"],
  ],
  "resource.v1alpha3.ResourceClaim": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "spec", "resource.v1alpha3.ResourceClaimSpec"],
    [3, "status", "resource.v1alpha3.ResourceClaimStatus"],
  ],
  "resource.v1alpha3.ResourceClaimConsumerReference": [
    [1, "apiGroup", "string"],
    [3, "resource", "string", 1],
    [4, "name", "string", 1],
    [5, "uid", "string", 1],
  ],
  "resource.v1alpha3.ResourceClaimList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]resource.v1alpha3.ResourceClaim"],
  ],
  "resource.v1alpha3.ResourceClaimSpec": [
    [1, "devices", "resource.v1alpha3.DeviceClaim"],
  ],
  "resource.v1alpha3.ResourceClaimStatus": [
    [1, "allocation", "resource.v1alpha3.AllocationResult"],
    [2, "reservedFor", "[]resource.v1alpha3.ResourceClaimConsumerReference"],
    [4, "devices", "[]resource.v1alpha3.AllocatedDeviceStatus"],
  ],
  "resource.v1alpha3.ResourceClaimTemplate": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "spec", "resource.v1alpha3.ResourceClaimTemplateSpec"],
  ],
  "resource.v1alpha3.ResourceClaimTemplateList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]resource.v1alpha3.ResourceClaimTemplate"],
  ],
  "resource.v1alpha3.ResourceClaimTemplateSpec": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "spec", "resource.v1alpha3.ResourceClaimSpec"],
  ],
  "resource.v1alpha3.ResourcePool": [
    [1, "name", "string", 1],
    [2, "generation", "int64", 1],
    [3, "resourceSliceCount", "int64", 1],
  ],
  "resource.v1alpha3.ResourceSlice": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "spec", "resource.v1alpha3.ResourceSliceSpec"],
  ],
  "resource.v1alpha3.ResourceSliceList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]resource.v1alpha3.ResourceSlice"],
  ],
  "resource.v1alpha3.ResourceSliceSpec": [
    [1, "driver", "string", 1],
    [2, "pool", "resource.v1alpha3.ResourcePool"],
    [3, "nodeName", "string"],
    [4, "nodeSelector", "core.v1.NodeSelector"],
    [5, "allNodes", "bool"],
    [6, "devices", "[]resource.v1alpha3.Device"],
  ],
};
