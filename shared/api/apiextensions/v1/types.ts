/**
 * The types of apiextensions.k8s.io/v1: CustomResourceDefinition and the OpenAPI v3 schema of its
 * versions (JSONSchemaProps), with field names as on the wire (k8s.io/apiextensions-apiserver
 * pkg/apis/apiextensions/v1/types.go, types_jsonschema.go).
 *
 * @module
 */
import type { KubeObject } from "../../meta/v1/types.ts";

/** One CEL validation rule (`x-kubernetes-validations` item). */
export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  /** `FieldValueInvalid` (default), `FieldValueForbidden`, `FieldValueRequired`, `FieldValueDuplicate`. */
  reason?: string;
  /** A JSONPath-like path relative to the rule's node, e.g. `.spec.replicas`. */
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

/** An OpenAPI v3 schema node as CRDs declare it. */
export interface JSONSchemaProps {
  id?: string;
  $schema?: string;
  $ref?: string;
  description?: string;
  type?: string;
  format?: string;
  title?: string;
  default?: unknown;
  maximum?: number;
  exclusiveMaximum?: boolean;
  minimum?: number;
  exclusiveMinimum?: boolean;
  maxLength?: number;
  minLength?: number;
  pattern?: string;
  maxItems?: number;
  minItems?: number;
  uniqueItems?: boolean;
  multipleOf?: number;
  enum?: unknown[];
  maxProperties?: number;
  minProperties?: number;
  required?: string[];
  /** A schema, or (not allowed in structural schemas) an array of schemas. */
  items?: JSONSchemaProps | JSONSchemaProps[];
  allOf?: JSONSchemaProps[];
  oneOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;
  properties?: Record<string, JSONSchemaProps>;
  additionalProperties?: JSONSchemaProps | boolean;
  patternProperties?: Record<string, JSONSchemaProps>;
  dependencies?: Record<string, JSONSchemaProps | string[]>;
  additionalItems?: JSONSchemaProps | boolean;
  definitions?: Record<string, JSONSchemaProps>;
  externalDocs?: { description?: string; url?: string };
  example?: unknown;
  nullable?: boolean;
  "x-kubernetes-preserve-unknown-fields"?: boolean;
  "x-kubernetes-embedded-resource"?: boolean;
  "x-kubernetes-int-or-string"?: boolean;
  "x-kubernetes-list-map-keys"?: string[];
  /** `atomic`, `set` or `map`. */
  "x-kubernetes-list-type"?: string;
  /** `atomic` or `granular`. */
  "x-kubernetes-map-type"?: string;
  "x-kubernetes-validations"?: ValidationRule[];
}

/** The names of a custom resource. */
export interface CustomResourceDefinitionNames {
  plural: string;
  singular?: string;
  shortNames?: string[];
  kind: string;
  listKind?: string;
  categories?: string[];
}

/** The scale subresource of a version. */
export interface CustomResourceSubresourceScale {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

/** The subresources of a version. */
export interface CustomResourceSubresources {
  /** Present (an empty object) when `/status` is served. */
  status?: Record<string, never>;
  scale?: CustomResourceSubresourceScale;
}

/** An additional printer column (Table column). */
export interface CustomResourceColumnDefinition {
  name: string;
  /** `integer`, `number`, `string`, `boolean` or `date`. */
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

/** One version of a custom resource. */
export interface CustomResourceDefinitionVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: JSONSchemaProps };
  subresources?: CustomResourceSubresources;
  additionalPrinterColumns?: CustomResourceColumnDefinition[];
  selectableFields?: { jsonPath: string }[];
}

/** A Service a webhook is reached through. */
export interface ServiceReference {
  namespace: string;
  name: string;
  path?: string;
  /** Default 443. */
  port?: number;
}

/** How the API server reaches a conversion webhook. */
export interface WebhookClientConfig {
  url?: string;
  service?: ServiceReference;
  /** Base64 PEM bundle (bytes on the wire). */
  caBundle?: string;
}

/** How objects are converted between versions. */
export interface CustomResourceConversion {
  /** `None` (default) or `Webhook`. */
  strategy: string;
  webhook?: { clientConfig?: WebhookClientConfig; conversionReviewVersions: string[] };
}

/** The desired state of a CRD. */
export interface CustomResourceDefinitionSpec {
  group: string;
  names: CustomResourceDefinitionNames;
  /** `Namespaced` or `Cluster`. */
  scope: string;
  versions: CustomResourceDefinitionVersion[];
  conversion?: CustomResourceConversion;
  preserveUnknownFields?: boolean;
}

/** A condition of a CRD (`NamesAccepted`, `Established`, `Terminating`, …). */
export interface CustomResourceDefinitionCondition {
  type: string;
  /** `True`, `False` or `Unknown`. */
  status: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/** The observed state of a CRD. */
export interface CustomResourceDefinitionStatus {
  conditions?: CustomResourceDefinitionCondition[];
  acceptedNames?: CustomResourceDefinitionNames;
  storedVersions?: string[];
}

/** apiextensions.k8s.io/v1 CustomResourceDefinition. */
export interface CustomResourceDefinition extends KubeObject {
  spec: CustomResourceDefinitionSpec;
  status?: CustomResourceDefinitionStatus;
}
