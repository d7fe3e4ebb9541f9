/**
 * The compiled index over every known Protobuf message (the tables of schema/, in the format of
 * message_descriptor.ts).
 *
 * @module
 */
import { type FieldTuple, INLINE, KEEP_ZERO, type MessageTable } from "./message_descriptor.ts";
import { coreV1Messages } from "./schema/core_v1.ts";
import { metaV1Messages } from "./schema/meta_v1.ts";
import { runtimeMessages } from "./schema/runtime.ts";
import { coordinationV1Messages } from "./schema/coordination_v1.ts";
import { authenticationV1Messages } from "./schema/authentication_v1.ts";
import { authorizationV1Messages } from "./schema/authorization_v1.ts";
import { eventsV1Messages } from "./schema/events_v1.ts";
import { rbacV1Messages } from "./schema/rbac_v1.ts";
import { appsV1Messages } from "./schema/apps_v1.ts";
import { batchV1Messages } from "./schema/batch_v1.ts";
import { autoscalingV1Messages } from "./schema/autoscaling_v1.ts";
import { autoscalingV2Messages } from "./schema/autoscaling_v2.ts";
import { policyV1Messages } from "./schema/policy_v1.ts";
import { networkingV1Messages } from "./schema/networking_v1.ts";
import { discoveryV1Messages } from "./schema/discovery_v1.ts";
import { storageV1Messages } from "./schema/storage_v1.ts";
import { admissionregistrationV1Messages } from "./schema/admissionregistration_v1.ts";
import { schedulingV1Messages } from "./schema/scheduling_v1.ts";
import { nodeV1Messages } from "./schema/node_v1.ts";
import { certificatesV1Messages } from "./schema/certificates_v1.ts";
import { flowcontrolV1Messages } from "./schema/flowcontrol_v1.ts";
import { apiextensionsV1Messages } from "./schema/apiextensions_v1.ts";
import { apiregistrationV1Messages } from "./schema/apiregistration_v1.ts";
import { metricsV1beta1Messages } from "./schema/metrics_v1beta1.ts";
import { admissionregistrationV1alpha1Messages } from "./schema/admissionregistration_v1alpha1.ts";
import { admissionregistrationV1beta1Messages } from "./schema/admissionregistration_v1beta1.ts";
import { coordinationV1alpha2Messages } from "./schema/coordination_v1alpha2.ts";
import { resourceV1alpha3Messages } from "./schema/resource_v1alpha3.ts";
import { resourceV1beta1Messages } from "./schema/resource_v1beta1.ts";
import { storageV1alpha1Messages } from "./schema/storage_v1alpha1.ts";
import { storageV1beta1Messages } from "./schema/storage_v1beta1.ts";
import { certificatesV1alpha1Messages } from "./schema/certificates_v1alpha1.ts";

/** The shape of a field's values. */
export type FieldKind = "string" | "bool" | "int32" | "int64" | "double" | "bytes" | "message";

/** A compiled field. */
export interface FieldInfo {
  /** Protobuf field number. */
  readonly no: number;
  /** Key in the JSON object (unused for inline fields). */
  readonly json: string;
  /** Scalar kind, or `message`. */
  readonly kind: FieldKind;
  /** Message name when `kind` is `message`. */
  readonly message?: string;
  /** A repeated field (JSON array). */
  readonly repeated: boolean;
  /** A `map<string, …>` field (JSON object); `kind`/`message` describe the value. */
  readonly map: boolean;
  /** See {@link KEEP_ZERO}. */
  readonly keepZero: boolean;
  /** See {@link INLINE}. */
  readonly inline: boolean;
}

/** A compiled message. */
export interface MessageInfo {
  /** Qualified name, for example `core.v1.Pod`. */
  readonly name: string;
  /** Fields in declaration order. */
  readonly fields: readonly FieldInfo[];
  /** Fields in ascending field-number order (the order they are written). */
  readonly byNumberOrder: readonly FieldInfo[];
  /** Field lookup by number. */
  readonly byNumber: ReadonlyMap<number, FieldInfo>;
  /** The fields that are not inline, by JSON key. */
  readonly byJson: ReadonlyMap<string, FieldInfo>;
  /** The inline fields (their members are keys of the same JSON object). */
  readonly inlineFields: readonly FieldInfo[];
}

const SCALARS = new Set(["string", "bool", "int32", "int64", "double", "bytes"]);

const tables: MessageTable[] = [
  metaV1Messages,
  runtimeMessages,
  coreV1Messages,
  coordinationV1Messages,
  authenticationV1Messages,
  authorizationV1Messages,
  eventsV1Messages,
  rbacV1Messages,
  appsV1Messages,
  batchV1Messages,
  autoscalingV1Messages,
  autoscalingV2Messages,
  policyV1Messages,
  networkingV1Messages,
  discoveryV1Messages,
  storageV1Messages,
  admissionregistrationV1Messages,
  schedulingV1Messages,
  nodeV1Messages,
  certificatesV1Messages,
  flowcontrolV1Messages,
  apiextensionsV1Messages,
  apiregistrationV1Messages,
  metricsV1beta1Messages,
  admissionregistrationV1alpha1Messages,
  admissionregistrationV1beta1Messages,
  coordinationV1alpha2Messages,
  resourceV1alpha3Messages,
  resourceV1beta1Messages,
  storageV1alpha1Messages,
  storageV1beta1Messages,
  certificatesV1alpha1Messages,
];

function compileField(t: FieldTuple): FieldInfo {
  const [no, json, rawType, flags = 0] = t;
  let type = rawType;
  let repeated = false;
  let map = false;
  if (type.startsWith("[]")) {
    repeated = true;
    type = type.slice(2);
  } else if (type.startsWith("map:")) {
    map = true;
    type = type.slice(4);
  }
  const scalar = SCALARS.has(type);
  return {
    no,
    json,
    kind: scalar ? type as FieldKind : "message",
    message: scalar ? undefined : type,
    repeated,
    map,
    keepZero: (flags & KEEP_ZERO) !== 0,
    inline: (flags & INLINE) !== 0,
  };
}

const index = new Map<string, MessageInfo>();
for (const table of tables) {
  for (const [name, tuples] of Object.entries(table)) {
    const fields = tuples.map(compileField);
    index.set(name, {
      name,
      fields,
      byNumberOrder: [...fields].sort((a, b) => a.no - b.no),
      byNumber: new Map(fields.map((f) => [f.no, f])),
      byJson: new Map(fields.filter((f) => !f.inline).map((f) => [f.json, f])),
      inlineFields: fields.filter((f) => f.inline),
    });
  }
}

/** Returns the compiled message called `name`, or undefined when no such message is known. */
export function messageInfo(name: string): MessageInfo | undefined {
  return index.get(name);
}
