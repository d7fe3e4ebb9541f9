/**
 * The schema model of every built-in kind, built once from the group declarations (kinds,
 * required fields, enums, defaults, merge markers) and the wire descriptors of the same groups
 * (field names and types), so that no field list is written twice.
 *
 * @module
 */
import { appsV1Messages } from "../../codec/protobuf/schema/apps_v1.ts";
import { autoscalingV1Messages } from "../../codec/protobuf/schema/autoscaling_v1.ts";
import { autoscalingV2Messages } from "../../codec/protobuf/schema/autoscaling_v2.ts";
import { policyV1Messages } from "../../codec/protobuf/schema/policy_v1.ts";
import { batchV1Messages } from "../../codec/protobuf/schema/batch_v1.ts";
import { authenticationV1Messages } from "../../codec/protobuf/schema/authentication_v1.ts";
import { authorizationV1Messages } from "../../codec/protobuf/schema/authorization_v1.ts";
import { coordinationV1Messages } from "../../codec/protobuf/schema/coordination_v1.ts";
import { coreV1Messages } from "../../codec/protobuf/schema/core_v1.ts";
import { eventsV1Messages } from "../../codec/protobuf/schema/events_v1.ts";
import { metaV1Messages } from "../../codec/protobuf/schema/meta_v1.ts";
import { rbacV1Messages } from "../../codec/protobuf/schema/rbac_v1.ts";
import { admissionregistrationV1Messages } from "../../codec/protobuf/schema/admissionregistration_v1.ts";
import { networkingV1Messages } from "../../codec/protobuf/schema/networking_v1.ts";
import { discoveryV1Messages } from "../../codec/protobuf/schema/discovery_v1.ts";
import { runtimeMessages } from "../../codec/protobuf/schema/runtime.ts";
import { storageV1Messages } from "../../codec/protobuf/schema/storage_v1.ts";
import { schedulingV1Messages } from "../../codec/protobuf/schema/scheduling_v1.ts";
import { nodeV1Messages } from "../../codec/protobuf/schema/node_v1.ts";
import { certificatesV1Messages } from "../../codec/protobuf/schema/certificates_v1.ts";
import { flowcontrolV1Messages } from "../../codec/protobuf/schema/flowcontrol_v1.ts";
import { apiextensionsV1Messages } from "../../codec/protobuf/schema/apiextensions_v1.ts";
import { apiregistrationV1Messages } from "../../codec/protobuf/schema/apiregistration_v1.ts";
import { metricsV1beta1Messages } from "../../codec/protobuf/schema/metrics_v1beta1.ts";
import { admissionregistrationV1alpha1Messages } from "../../codec/protobuf/schema/admissionregistration_v1alpha1.ts";
import { admissionregistrationV1beta1Messages } from "../../codec/protobuf/schema/admissionregistration_v1beta1.ts";
import { coordinationV1alpha2Messages } from "../../codec/protobuf/schema/coordination_v1alpha2.ts";
import { resourceV1alpha3Messages } from "../../codec/protobuf/schema/resource_v1alpha3.ts";
import { resourceV1beta1Messages } from "../../codec/protobuf/schema/resource_v1beta1.ts";
import { storageV1alpha1Messages } from "../../codec/protobuf/schema/storage_v1alpha1.ts";
import { storageV1beta1Messages } from "../../codec/protobuf/schema/storage_v1beta1.ts";
import { certificatesV1alpha1Messages } from "../../codec/protobuf/schema/certificates_v1alpha1.ts";
import {
  type FieldTuple,
  INLINE,
  type MessageTable,
} from "../../codec/protobuf/message_descriptor.ts";
import { appsV1Schema } from "../apps/v1/schema.ts";
import { autoscalingV1Schema } from "../autoscaling/v1/schema.ts";
import { autoscalingV2Schema } from "../autoscaling/v2/schema.ts";
import { policyV1Schema } from "../policy/v1/schema.ts";
import { batchV1Schema } from "../batch/v1/schema.ts";
import { authenticationV1Schema } from "../authentication/v1/schema.ts";
import { authorizationV1Schema } from "../authorization/v1/schema.ts";
import { coordinationV1Schema } from "../coordination/v1/schema.ts";
import { coreV1Schema } from "../core/v1/schema.ts";
import { eventsV1Schema } from "../events/v1/schema.ts";
import { metaV1Schema } from "../meta/v1/schema.ts";
import { rbacV1Schema } from "../rbac/v1/schema.ts";
import { admissionregistrationV1Schema } from "../admissionregistration/v1/schema.ts";
import { storageV1Schema } from "../storage/v1/schema.ts";
import { schedulingV1Schema } from "../scheduling/v1/schema.ts";
import { nodeV1Schema } from "../node/v1/schema.ts";
import { networkingV1Schema } from "../networking/v1/schema.ts";
import { discoveryV1Schema } from "../discovery/v1/schema.ts";
import { certificatesV1Schema } from "../certificates/v1/schema.ts";
import { flowcontrolV1Schema } from "../flowcontrol/v1/schema.ts";
import { apiextensionsV1Schema } from "../apiextensions/v1/schema.ts";
import { apiregistrationV1Schema } from "../apiregistration/v1/schema.ts";
import { metricsV1beta1Schema } from "../metrics/v1beta1/schema.ts";
import { resourceV1beta1Schema } from "../resource/v1beta1/schema.ts";
import { resourceV1alpha3Schema } from "../resource/v1alpha3/schema.ts";
import { admissionregistrationV1beta1Schema } from "../admissionregistration/v1beta1/schema.ts";
import { admissionregistrationV1alpha1Schema } from "../admissionregistration/v1alpha1/schema.ts";
import { coordinationV1alpha2Schema } from "../coordination/v1alpha2/schema.ts";
import { storageV1beta1Schema } from "../storage/v1beta1/schema.ts";
import { storageV1alpha1Schema } from "../storage/v1alpha1/schema.ts";
import { certificatesV1alpha1Schema } from "../certificates/v1alpha1/schema.ts";
import type { GroupSchema } from "./group_schema.ts";
import { type FieldSchema, SchemaModel, type TypeSchema } from "./model.ts";

/** The group declarations of the built-in kinds. */
export const BUILTIN_GROUP_SCHEMAS: readonly GroupSchema[] = [
  metaV1Schema,
  coreV1Schema,
  coordinationV1Schema,
  authenticationV1Schema,
  authorizationV1Schema,
  eventsV1Schema,
  rbacV1Schema,
  appsV1Schema,
  batchV1Schema,
  autoscalingV1Schema,
  admissionregistrationV1Schema,
  storageV1Schema,
  schedulingV1Schema,
  nodeV1Schema,
  autoscalingV2Schema,
  networkingV1Schema,
  discoveryV1Schema,
  policyV1Schema,
  certificatesV1Schema,
  flowcontrolV1Schema,
  apiextensionsV1Schema,
  apiregistrationV1Schema,
  metricsV1beta1Schema,
  admissionregistrationV1beta1Schema,
  admissionregistrationV1alpha1Schema,
  coordinationV1alpha2Schema,
  storageV1beta1Schema,
  storageV1alpha1Schema,
  certificatesV1alpha1Schema,
  resourceV1beta1Schema,
  resourceV1alpha3Schema,
];

const MESSAGES: MessageTable = {
  ...metaV1Messages,
  ...runtimeMessages,
  ...coreV1Messages,
  ...coordinationV1Messages,
  ...authenticationV1Messages,
  ...authorizationV1Messages,
  ...eventsV1Messages,
  ...rbacV1Messages,
  ...appsV1Messages,
  ...batchV1Messages,
  ...autoscalingV1Messages,
  ...admissionregistrationV1Messages,
  ...storageV1Messages,
  ...schedulingV1Messages,
  ...nodeV1Messages,
  ...autoscalingV2Messages,
  ...networkingV1Messages,
  ...discoveryV1Messages,
  ...policyV1Messages,
  ...certificatesV1Messages,
  ...flowcontrolV1Messages,
  ...apiextensionsV1Messages,
  ...apiregistrationV1Messages,
  ...metricsV1beta1Messages,
  ...admissionregistrationV1alpha1Messages,
  ...admissionregistrationV1beta1Messages,
  ...coordinationV1alpha2Messages,
  ...resourceV1alpha3Messages,
  ...resourceV1beta1Messages,
  ...storageV1alpha1Messages,
  ...storageV1beta1Messages,
  ...certificatesV1alpha1Messages,
};

const APIEXTENSIONS = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1";

/** apiextensions/v1's wrappers whose JSON is any value (their OpenAPI definitions have no type). */
const APIEXTENSIONS_JSON_VALUES: Readonly<
  Record<string, { openApiName: string; scalar: FieldSchema }>
> = Object.fromEntries(
  [
    ["JSON", "JSON represents any valid JSON value."],
    ["JSONSchemaPropsOrArray", "A JSONSchemaProps or an array of JSONSchemaProps."],
    ["JSONSchemaPropsOrBool", "A JSONSchemaProps or a boolean value (default true)."],
    ["JSONSchemaPropsOrStringArray", "A JSONSchemaProps or a string array."],
  ].map(([name, description]) => [
    `apiextensions.v1.${name}`,
    { openApiName: `${APIEXTENSIONS}.${name}`, scalar: { type: "any", description } },
  ]),
);

/** Named types whose JSON is not an object of their wire fields. */
const NAMED_SCALARS: Readonly<Record<string, { openApiName: string; scalar: FieldSchema }>> = {
  "meta.v1.Time": {
    openApiName: "io.k8s.apimachinery.pkg.apis.meta.v1.Time",
    scalar: {
      type: "string",
      format: "date-time",
      description: "A time in RFC 3339 form, with second precision.",
    },
  },
  "meta.v1.MicroTime": {
    openApiName: "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime",
    scalar: {
      type: "string",
      format: "date-time",
      description: "A time in RFC 3339 form, with microsecond precision.",
    },
  },
  "meta.v1.Duration": {
    openApiName: "io.k8s.apimachinery.pkg.apis.meta.v1.Duration",
    scalar: { type: "string", description: "A duration such as 1h30m." },
  },
  "resource.Quantity": {
    openApiName: "io.k8s.apimachinery.pkg.api.resource.Quantity",
    scalar: {
      type: "quantity",
      description:
        "A fixed-point number with an optional suffix: binary (Ki, Mi, Gi, Ti, Pi, Ei), " +
        "decimal (m, k, M, G, T, P, E) or an exponent (e3, E6).",
    },
  },
  "intstr.IntOrString": {
    openApiName: "io.k8s.apimachinery.pkg.util.intstr.IntOrString",
    scalar: { type: "intOrString", description: "An integer or a string." },
  },
  ...APIEXTENSIONS_JSON_VALUES,
};

/** Named types kept as free-form JSON. */
const FREE_FORM: Readonly<Record<string, { openApiName: string; description: string }>> = {
  "meta.v1.FieldsV1": {
    openApiName: "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1",
    description: "A set of fields, as a trie of `f:`/`k:`/`v:`/`i:` keys.",
  },
  "runtime.RawExtension": {
    openApiName: "io.k8s.apimachinery.pkg.runtime.RawExtension",
    description: "An embedded object of any kind.",
  },
};

/** Messages whose JSON is a list of strings. */
const STRING_LISTS = new Set([
  "authentication.v1.ExtraValue",
  "authorization.v1.ExtraValue",
  "certificates.v1.ExtraValue",
  "meta.v1.Verbs",
]);

function scalarField(type: string): FieldSchema | undefined {
  switch (type) {
    case "string":
      return { type: "string" };
    case "bool":
      return { type: "boolean" };
    case "int32":
      return { type: "integer", format: "int32" };
    case "int64":
      return { type: "integer", format: "int64" };
    case "bytes":
      return { type: "string", format: "byte" };
    case "double":
      return { type: "number", format: "double" };
  }
  return undefined;
}

function elementField(type: string): FieldSchema {
  const scalar = scalarField(type);
  if (scalar) return scalar;
  if (STRING_LISTS.has(type)) return { type: "array", items: { type: "string" } };
  return { type: "ref", ref: type };
}

function fieldOf(type: string): FieldSchema {
  if (type.startsWith("[]")) return { type: "array", items: elementField(type.slice(2)) };
  if (type.startsWith("map:")) return { type: "map", values: elementField(type.slice(4)) };
  return elementField(type);
}

function packageOf(name: string): string {
  return name.slice(0, name.lastIndexOf("."));
}

/** Builds the model from group declarations and wire descriptors; throws on a declaration typo. */
export function buildSchemaModel(
  groups: readonly GroupSchema[],
  messages: MessageTable,
): SchemaModel {
  const byPackage = new Map(groups.map((g) => [g.package, g]));
  const types: TypeSchema[] = [];
  const prefixes: Record<string, string> = { runtime: "io.k8s.apimachinery.pkg.runtime" };
  for (const g of groups) prefixes[g.package] = g.openApiPrefix;

  const names = new Set([
    ...Object.keys(NAMED_SCALARS),
    ...Object.keys(FREE_FORM),
    ...Object.keys(messages),
  ]);
  for (const name of names) {
    const pkg = packageOf(name);
    const short = name.slice(pkg.length + 1);
    const prefix = prefixes[pkg];
    if (!prefix && !NAMED_SCALARS[name]) continue;
    if (NAMED_SCALARS[name]) {
      types.push({ name, ...NAMED_SCALARS[name], properties: {}, required: [] });
      continue;
    }
    if (FREE_FORM[name]) {
      types.push({
        name,
        openApiName: FREE_FORM[name].openApiName,
        description: FREE_FORM[name].description,
        properties: {},
        required: [],
        preserveUnknownFields: true,
      });
      continue;
    }
    if (STRING_LISTS.has(name) || pkg === "runtime") continue;
    const group = byPackage.get(pkg);
    const overlay = group?.types[short];
    const { props, required } = propertiesOf(name, new Set([name]), messages, byPackage);
    for (const [field, add] of Object.entries(overlay?.fields ?? {})) {
      if (!props[field]) throw new Error(`schema declaration: ${name} has no field ${field}`);
      props[field] = { ...props[field], ...add };
    }
    const documentedRequired = overlay?.documentedRequired;
    for (const r of [...required, ...documentedRequired ?? []]) {
      if (!props[r]) throw new Error(`schema declaration: ${name} has no required field ${r}`);
    }
    const t: TypeSchema = {
      name,
      openApiName: `${prefix}.${short}`,
      description: overlay?.description,
      properties: props,
      required,
      documentedRequired,
      structType: overlay?.structType,
    };
    if (group?.kinds.includes(short)) {
      const gvk = { group: group.group, version: group.version, kind: short };
      t.gvk = [gvk];
      t.properties = withTypeMeta(props);
    }
    types.push(t);
  }
  checkDeclaredTypes(groups, messages);
  return new SchemaModel(types);
}

/**
 * The properties of message `name` (those of inlined messages included, `seen` guarding
 * against cycles) and its required fields, the declaration's own added.
 */
function propertiesOf(
  name: string,
  seen: Set<string>,
  messages: MessageTable,
  byPackage: ReadonlyMap<string, GroupSchema>,
): { props: Record<string, FieldSchema>; required: string[] } {
  const tuples: readonly FieldTuple[] = messages[name] ?? [];
  const props: Record<string, FieldSchema> = {};
  const required: string[] = [];
  for (const [, json, type, flags = 0] of tuples) {
    if (json === "-") continue;
    if ((flags & INLINE) !== 0 && !seen.has(type)) {
      const inner = propertiesOf(type, new Set([...seen, type]), messages, byPackage);
      Object.assign(props, inner.props);
      required.push(...inner.required);
      continue;
    }
    props[json] = fieldOf(type);
  }
  const overlay = byPackage.get(packageOf(name))?.types[name.slice(packageOf(name).length + 1)];
  for (const r of overlay?.required ?? []) if (!required.includes(r)) required.push(r);
  return { props, required };
}

/** A kind's properties: apiVersion and kind first, then `props`. */
function withTypeMeta(props: Record<string, FieldSchema>): Record<string, FieldSchema> {
  return {
    apiVersion: {
      type: "string",
      description: "The versioned schema of this representation of an object.",
    },
    kind: { type: "string", description: "The REST resource this object represents." },
    ...props,
  };
}

/** Throws when a group declares a type that has no wire descriptor. */
function checkDeclaredTypes(groups: readonly GroupSchema[], messages: MessageTable): void {
  for (const g of groups) {
    for (const short of Object.keys(g.types)) {
      if (!messages[`${g.package}.${short}`]) {
        throw new Error(`schema declaration: unknown type ${g.package}.${short}`);
      }
    }
  }
}

let builtin: SchemaModel | undefined;

/** The schema model of the built-in kinds (built on first use). */
export function builtinSchemaModel(): SchemaModel {
  builtin ??= buildSchemaModel(BUILTIN_GROUP_SCHEMAS, MESSAGES);
  return builtin;
}
