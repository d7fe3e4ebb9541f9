/**
 * The schema declaration of resource.k8s.io/v1beta1 (DeviceClass, ResourceClaim,
 * ResourceClaimTemplate, ResourceSlice; off by default) with the list types of kube 1.32's
 * OpenAPI. v1alpha3 shares the declarations.
 *
 * @module
 */
import {
  ATOMIC_LIST,
  type GroupSchema,
  mergeList,
  type TypeOverlay,
} from "../../schema/group_schema.ts";

/** The kinds of resource.k8s.io v1beta1 and v1alpha3. */
export const RESOURCE_KINDS = [
  "DeviceClass",
  "DeviceClassList",
  "ResourceClaim",
  "ResourceClaimList",
  "ResourceClaimTemplate",
  "ResourceClaimTemplateList",
  "ResourceSlice",
  "ResourceSliceList",
] as const;

/** The declarations of resource.k8s.io v1beta1 and v1alpha3. */
export const RESOURCE_TYPES: Readonly<Record<string, TypeOverlay>> = {
  DeviceClass: {
    description: "A class of devices: selectors and configuration its claims share.",
    documentedRequired: ["spec"],
  },
  DeviceClassList: { required: ["items"] },
  DeviceClassSpec: { fields: { selectors: ATOMIC_LIST, config: ATOMIC_LIST } },
  ResourceClaim: {
    description: "A request for devices, allocated by the scheduler.",
    documentedRequired: ["spec"],
  },
  ResourceClaimList: { required: ["items"] },
  ResourceClaimTemplate: {
    description: "The ResourceClaim created for each pod that names the template.",
    documentedRequired: ["spec"],
  },
  ResourceClaimTemplateList: { required: ["items"] },
  ResourceClaimTemplateSpec: { documentedRequired: ["spec"] },
  DeviceClaim: {
    fields: { requests: ATOMIC_LIST, constraints: ATOMIC_LIST, config: ATOMIC_LIST },
  },
  DeviceRequest: {
    documentedRequired: ["name", "deviceClassName"],
    fields: {
      selectors: ATOMIC_LIST,
      allocationMode: { description: "ExactCount (default) or All." },
      count: { description: "The number of devices with ExactCount (default 1)." },
    },
  },
  DeviceConstraint: { fields: { requests: ATOMIC_LIST } },
  DeviceClaimConfiguration: { fields: { requests: ATOMIC_LIST } },
  DeviceSelector: {},
  CELDeviceSelector: { documentedRequired: ["expression"] },
  OpaqueDeviceConfiguration: { documentedRequired: ["driver", "parameters"] },
  ResourceClaimStatus: {
    fields: {
      reservedFor: { ...mergeList("uid"), description: "The consumers the claim is reserved for." },
      devices: { listType: "map", listMapKeys: ["driver", "device", "pool"] },
    },
  },
  DeviceAllocationResult: { fields: { results: ATOMIC_LIST, config: ATOMIC_LIST } },
  DeviceAllocationConfiguration: { fields: { requests: ATOMIC_LIST } },
  AllocatedDeviceStatus: { fields: { conditions: mergeList("type") } },
  NetworkDeviceData: { fields: { ips: ATOMIC_LIST } },
  ResourceSlice: {
    description: "Devices a driver publishes for one pool.",
    documentedRequired: ["spec"],
  },
  ResourceSliceList: { required: ["items"] },
  ResourceSliceSpec: {
    documentedRequired: ["driver", "pool"],
    fields: { devices: ATOMIC_LIST },
  },
  ResourcePool: { documentedRequired: ["name", "generation", "resourceSliceCount"] },
  Device: { documentedRequired: ["name"] },
};

/** resource.k8s.io/v1beta1. */
export const resourceV1beta1Schema: GroupSchema = {
  package: "resource.v1beta1",
  group: "resource.k8s.io",
  version: "v1beta1",
  openApiPrefix: "io.k8s.api.resource.v1beta1",
  kinds: RESOURCE_KINDS,
  types: RESOURCE_TYPES,
};
