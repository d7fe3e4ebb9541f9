/**
 * The schema declaration of meta/v1: object and list metadata, Status, options and the other
 * types every group shares.
 *
 * @module
 */
import { ATOMIC_LIST, type GroupSchema, mergeList } from "../../schema/group_schema.ts";

/** meta/v1 (served as kinds of every group version; declared here once). */
export const metaV1Schema: GroupSchema = {
  package: "meta.v1",
  group: "",
  version: "v1",
  openApiPrefix: "io.k8s.apimachinery.pkg.apis.meta.v1",
  kinds: ["Status"],
  types: {
    ObjectMeta: {
      description: "Metadata every persisted object has.",
      fields: {
        name: { description: "Name, unique within a namespace (or the cluster)." },
        generateName: {
          description: "Prefix from which the server generates a unique name when name is unset.",
        },
        namespace: { description: "The namespace of a namespaced object." },
        uid: { description: "Unique identifier set by the server." },
        resourceVersion: {
          description: "Opaque version of the object, for optimistic concurrency and watches.",
        },
        creationTimestamp: { description: "When the object was created (set by the server)." },
        deletionTimestamp: { description: "When deletion was requested; set by the server." },
        labels: { description: "Key/value pairs used to organise and select objects." },
        annotations: { description: "Unstructured key/value metadata for tools." },
        ownerReferences: { ...mergeList("uid"), description: "Objects this object depends on." },
        finalizers: {
          listType: "set",
          patchStrategy: "merge",
          description: "Keys that must be removed before the object is removed.",
        },
        managedFields: {
          ...ATOMIC_LIST,
          description: "Which field manager owns which fields (server-side apply).",
        },
      },
    },
    OwnerReference: { required: ["apiVersion", "kind", "name", "uid"], structType: "atomic" },
    LabelSelector: { structType: "atomic", fields: { matchExpressions: ATOMIC_LIST } },
    LabelSelectorRequirement: {
      required: ["key", "operator"],
      fields: { values: ATOMIC_LIST },
    },
    Condition: {
      required: ["type", "status", "lastTransitionTime", "reason", "message"],
      fields: { status: { enum: ["False", "True", "Unknown"] } },
    },
    Status: {
      description: "Status is the result of an operation that returns no object (errors).",
      fields: { details: { description: "Extended data of the reason." } },
    },
    StatusDetails: { fields: { causes: ATOMIC_LIST } },
    DeleteOptions: {
      fields: {
        dryRun: ATOMIC_LIST,
        propagationPolicy: { enum: ["Background", "Foreground", "Orphan"] },
      },
    },
    WatchEvent: { required: ["type", "object"] },
  },
};
