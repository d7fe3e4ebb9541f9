/**
 * Message descriptors of meta/v1 (k8s.io/apimachinery/pkg/apis/meta/v1), Kubernetes 1.32.
 *
 * Field numbers, wire types and JSON names are the facts of the upstream API types; the table format
 * is ours (see {@link MessageTable}).
 *
 * @module
 */
import type { MessageTable } from "../message_descriptor.ts";

/** Messages of meta/v1 (k8s.io/apimachinery/pkg/apis/meta/v1). */
export const metaV1Messages: MessageTable = {
  "meta.v1.APIGroup": [
    [1, "name", "string", 1],
    [2, "versions", "[]meta.v1.GroupVersionForDiscovery"],
    [3, "preferredVersion", "meta.v1.GroupVersionForDiscovery"],
    [4, "serverAddressByClientCIDRs", "[]meta.v1.ServerAddressByClientCIDR"],
  ],
  "meta.v1.APIGroupList": [
    [1, "groups", "[]meta.v1.APIGroup"],
  ],
  "meta.v1.APIResource": [
    [1, "name", "string", 1],
    [6, "singularName", "string", 1],
    [2, "namespaced", "bool", 1],
    [8, "group", "string"],
    [9, "version", "string"],
    [3, "kind", "string", 1],
    [4, "verbs", "meta.v1.Verbs"],
    [5, "shortNames", "[]string"],
    [7, "categories", "[]string"],
    [10, "storageVersionHash", "string"],
  ],
  "meta.v1.APIResourceList": [
    [1, "groupVersion", "string", 1],
    [2, "resources", "[]meta.v1.APIResource"],
  ],
  "meta.v1.APIVersions": [
    [1, "versions", "[]string"],
    [2, "serverAddressByClientCIDRs", "[]meta.v1.ServerAddressByClientCIDR"],
  ],
  "meta.v1.ApplyOptions": [
    [1, "dryRun", "[]string"],
    [2, "force", "bool", 1],
    [3, "fieldManager", "string", 1],
  ],
  "meta.v1.Condition": [
    [1, "type", "string", 1],
    [2, "status", "string", 1],
    [3, "observedGeneration", "int64"],
    [4, "lastTransitionTime", "meta.v1.Time"],
    [5, "reason", "string", 1],
    [6, "message", "string", 1],
  ],
  "meta.v1.CreateOptions": [
    [1, "dryRun", "[]string"],
    [3, "fieldManager", "string"],
    [4, "fieldValidation", "string"],
  ],
  "meta.v1.DeleteOptions": [
    [1, "gracePeriodSeconds", "int64", 1],
    [2, "preconditions", "meta.v1.Preconditions"],
    [3, "orphanDependents", "bool", 1],
    [4, "propagationPolicy", "string", 1],
    [5, "dryRun", "[]string"],
    [6, "ignoreStoreReadErrorWithClusterBreakingPotential", "bool", 1],
  ],
  "meta.v1.Duration": [
    [1, "duration", "int64"],
  ],
  "meta.v1.FieldSelectorRequirement": [
    [1, "key", "string", 1],
    [2, "operator", "string", 1],
    [3, "values", "[]string"],
  ],
  "meta.v1.FieldsV1": [
    [1, "-", "bytes", 1],
  ],
  "meta.v1.GetOptions": [
    [1, "resourceVersion", "string"],
  ],
  "meta.v1.GroupKind": [
    [1, "group", "string"],
    [2, "kind", "string"],
  ],
  "meta.v1.GroupResource": [
    [1, "group", "string"],
    [2, "resource", "string"],
  ],
  "meta.v1.GroupVersion": [
    [1, "group", "string"],
    [2, "version", "string"],
  ],
  "meta.v1.GroupVersionForDiscovery": [
    [1, "groupVersion", "string", 1],
    [2, "version", "string", 1],
  ],
  "meta.v1.GroupVersionKind": [
    [1, "group", "string"],
    [2, "version", "string"],
    [3, "kind", "string"],
  ],
  "meta.v1.GroupVersionResource": [
    [1, "group", "string"],
    [2, "version", "string"],
    [3, "resource", "string"],
  ],
  "meta.v1.LabelSelector": [
    [1, "matchLabels", "map:string"],
    [2, "matchExpressions", "[]meta.v1.LabelSelectorRequirement"],
  ],
  "meta.v1.LabelSelectorRequirement": [
    [1, "key", "string", 1],
    [2, "operator", "string", 1],
    [3, "values", "[]string"],
  ],
  "meta.v1.List": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]runtime.RawExtension"],
  ],
  "meta.v1.ListMeta": [
    [1, "selfLink", "string"],
    [2, "resourceVersion", "string"],
    [3, "continue", "string"],
    [4, "remainingItemCount", "int64", 1],
  ],
  "meta.v1.ListOptions": [
    [1, "labelSelector", "string"],
    [2, "fieldSelector", "string"],
    [3, "watch", "bool"],
    [9, "allowWatchBookmarks", "bool"],
    [4, "resourceVersion", "string"],
    [10, "resourceVersionMatch", "string"],
    [5, "timeoutSeconds", "int64", 1],
    [7, "limit", "int64"],
    [8, "continue", "string"],
    [11, "sendInitialEvents", "bool", 1],
  ],
  "meta.v1.ManagedFieldsEntry": [
    [1, "manager", "string"],
    [2, "operation", "string"],
    [3, "apiVersion", "string"],
    [4, "time", "meta.v1.Time"],
    [6, "fieldsType", "string"],
    [7, "fieldsV1", "meta.v1.FieldsV1"],
    [8, "subresource", "string"],
  ],
  "meta.v1.MicroTime": [
    [1, "seconds", "int64"],
    [2, "nanos", "int32"],
  ],
  "meta.v1.ObjectMeta": [
    [1, "name", "string"],
    [2, "generateName", "string"],
    [3, "namespace", "string"],
    [4, "selfLink", "string"],
    [5, "uid", "string"],
    [6, "resourceVersion", "string"],
    [7, "generation", "int64"],
    [8, "creationTimestamp", "meta.v1.Time"],
    [9, "deletionTimestamp", "meta.v1.Time"],
    [10, "deletionGracePeriodSeconds", "int64", 1],
    [11, "labels", "map:string"],
    [12, "annotations", "map:string"],
    [13, "ownerReferences", "[]meta.v1.OwnerReference"],
    [14, "finalizers", "[]string"],
    [17, "managedFields", "[]meta.v1.ManagedFieldsEntry"],
  ],
  "meta.v1.OwnerReference": [
    [5, "apiVersion", "string", 1],
    [1, "kind", "string", 1],
    [3, "name", "string", 1],
    [4, "uid", "string", 1],
    [6, "controller", "bool", 1],
    [7, "blockOwnerDeletion", "bool", 1],
  ],
  "meta.v1.PartialObjectMetadata": [
    [1, "metadata", "meta.v1.ObjectMeta"],
  ],
  "meta.v1.PartialObjectMetadataList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]meta.v1.PartialObjectMetadata"],
  ],
  "meta.v1.Patch": [],
  "meta.v1.PatchOptions": [
    [1, "dryRun", "[]string"],
    [2, "force", "bool", 1],
    [3, "fieldManager", "string"],
    [4, "fieldValidation", "string"],
  ],
  "meta.v1.Preconditions": [
    [1, "uid", "string", 1],
    [2, "resourceVersion", "string", 1],
  ],
  "meta.v1.RootPaths": [
    [1, "paths", "[]string"],
  ],
  "meta.v1.ServerAddressByClientCIDR": [
    [1, "clientCIDR", "string", 1],
    [2, "serverAddress", "string", 1],
  ],
  "meta.v1.Status": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "status", "string"],
    [3, "message", "string"],
    [4, "reason", "string"],
    [5, "details", "meta.v1.StatusDetails"],
    [6, "code", "int32"],
  ],
  "meta.v1.StatusCause": [
    [1, "reason", "string"],
    [2, "message", "string"],
    [3, "field", "string"],
  ],
  "meta.v1.StatusDetails": [
    [1, "name", "string"],
    [2, "group", "string"],
    [3, "kind", "string"],
    [6, "uid", "string"],
    [4, "causes", "[]meta.v1.StatusCause"],
    [5, "retryAfterSeconds", "int32"],
  ],
  "meta.v1.TableOptions": [
    [1, "includeObject", "string"],
  ],
  "meta.v1.Time": [
    [1, "seconds", "int64"],
    [2, "nanos", "int32"],
  ],
  "meta.v1.Timestamp": [
    [1, "seconds", "int64"],
    [2, "nanos", "int32"],
  ],
  "meta.v1.TypeMeta": [
    [1, "kind", "string"],
    [2, "apiVersion", "string"],
  ],
  "meta.v1.UpdateOptions": [
    [1, "dryRun", "[]string"],
    [2, "fieldManager", "string"],
    [3, "fieldValidation", "string"],
  ],
  "meta.v1.Verbs": [
    [1, "items", "[]string"],
  ],
  "meta.v1.WatchEvent": [
    [1, "type", "string", 1],
    [2, "object", "runtime.RawExtension"],
  ],
};
