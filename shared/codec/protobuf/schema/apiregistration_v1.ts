/**
 * Message descriptors of apiregistration.k8s.io/v1 (k8s.io/kube-aggregator/pkg/apis/apiregistration/v1),
 * Kubernetes 1.32.
 *
 * Field numbers, wire types and JSON names are the facts of the upstream API types; the table format
 * is ours (see {@link MessageTable}).
 *
 * @module
 */
import type { MessageTable } from "../message_descriptor.ts";

/** Messages of apiregistration.k8s.io/v1. */
export const apiregistrationV1Messages: MessageTable = {
  "apiregistration.v1.APIService": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "spec", "apiregistration.v1.APIServiceSpec"],
    [3, "status", "apiregistration.v1.APIServiceStatus"],
  ],
  "apiregistration.v1.APIServiceCondition": [
    [1, "type", "string", 1],
    [2, "status", "string", 1],
    [3, "lastTransitionTime", "meta.v1.Time"],
    [4, "reason", "string"],
    [5, "message", "string"],
  ],
  "apiregistration.v1.APIServiceList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]apiregistration.v1.APIService"],
  ],
  "apiregistration.v1.APIServiceSpec": [
    [1, "service", "apiregistration.v1.ServiceReference"],
    [2, "group", "string"],
    [3, "version", "string"],
    [4, "insecureSkipTLSVerify", "bool"],
    [5, "caBundle", "bytes"],
    [7, "groupPriorityMinimum", "int32", 1],
    [8, "versionPriority", "int32", 1],
  ],
  "apiregistration.v1.APIServiceStatus": [
    [1, "conditions", "[]apiregistration.v1.APIServiceCondition"],
  ],
  "apiregistration.v1.ServiceReference": [
    [1, "namespace", "string"],
    [2, "name", "string"],
    [3, "port", "int32", 1],
  ],
};
