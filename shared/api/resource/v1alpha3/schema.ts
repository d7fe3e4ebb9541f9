/**
 * The schema declaration of resource.k8s.io/v1alpha3 (off by default): v1beta1's, but for a
 * device's capacity (a Quantity here, a DeviceCapacity there, as the descriptors say).
 *
 * @module
 */
import type { GroupSchema } from "../../schema/group_schema.ts";
import { RESOURCE_KINDS, RESOURCE_TYPES } from "../v1beta1/schema.ts";

/** resource.k8s.io/v1alpha3. */
export const resourceV1alpha3Schema: GroupSchema = {
  package: "resource.v1alpha3",
  group: "resource.k8s.io",
  version: "v1alpha3",
  openApiPrefix: "io.k8s.api.resource.v1alpha3",
  kinds: RESOURCE_KINDS,
  types: RESOURCE_TYPES,
};
