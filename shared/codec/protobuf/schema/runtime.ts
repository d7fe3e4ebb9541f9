/**
 * Message descriptors of runtime (k8s.io/apimachinery/pkg/runtime), Kubernetes 1.32.
 *
 * Field numbers, wire types and JSON names are the facts of the upstream API types; the table format
 * is ours (see {@link MessageTable}).
 *
 * @module
 */
import type { MessageTable } from "../message_descriptor.ts";

/** Messages of runtime (k8s.io/apimachinery/pkg/runtime). */
export const runtimeMessages: MessageTable = {
  "runtime.RawExtension": [
    [1, "-", "bytes", 1],
  ],
  "runtime.TypeMeta": [
    [1, "apiVersion", "string"],
    [2, "kind", "string"],
  ],
  "runtime.Unknown": [
    [1, "typeMeta", "runtime.TypeMeta", 2],
    [2, "-", "bytes", 1],
    [3, "contentEncoding", "string", 1],
    [4, "contentType", "string", 1],
  ],
};
