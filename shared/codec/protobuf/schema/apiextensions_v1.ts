/**
 * Message descriptors of apiextensions.k8s.io/v1 (k8s.io/apiextensions-apiserver
 * pkg/apis/apiextensions/v1), Kubernetes 1.32.
 *
 * Field numbers, wire types and JSON names are the facts of the upstream API types; the table format
 * is ours (see {@link MessageTable}). `JSON` and the three `JSONSchemaPropsOr*` wrappers have JSON
 * forms that are not objects of their fields (any JSON value; a schema or an array; a schema or a
 * boolean; a schema or a list of strings).
 *
 * @module
 */
import type { MessageTable } from "../message_descriptor.ts";

/** Messages of apiextensions.k8s.io/v1. */
export const apiextensionsV1Messages: MessageTable = {
  "apiextensions.v1.ConversionRequest": [
    [1, "uid", "string", 1],
    [2, "desiredAPIVersion", "string", 1],
    [3, "objects", "[]runtime.RawExtension"],
  ],
  "apiextensions.v1.ConversionResponse": [
    [1, "uid", "string", 1],
    [2, "convertedObjects", "[]runtime.RawExtension"],
    [3, "result", "meta.v1.Status"],
  ],
  "apiextensions.v1.ConversionReview": [
    [1, "request", "apiextensions.v1.ConversionRequest"],
    [2, "response", "apiextensions.v1.ConversionResponse"],
  ],
  "apiextensions.v1.CustomResourceColumnDefinition": [
    [1, "name", "string", 1],
    [2, "type", "string", 1],
    [3, "format", "string"],
    [4, "description", "string"],
    [5, "priority", "int32"],
    [6, "jsonPath", "string", 1],
  ],
  "apiextensions.v1.CustomResourceConversion": [
    [1, "strategy", "string", 1],
    [2, "webhook", "apiextensions.v1.WebhookConversion"],
  ],
  "apiextensions.v1.CustomResourceDefinition": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "spec", "apiextensions.v1.CustomResourceDefinitionSpec"],
    [3, "status", "apiextensions.v1.CustomResourceDefinitionStatus"],
  ],
  "apiextensions.v1.CustomResourceDefinitionCondition": [
    [1, "type", "string", 1],
    [2, "status", "string", 1],
    [3, "lastTransitionTime", "meta.v1.Time"],
    [4, "reason", "string"],
    [5, "message", "string"],
  ],
  "apiextensions.v1.CustomResourceDefinitionList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]apiextensions.v1.CustomResourceDefinition"],
  ],
  "apiextensions.v1.CustomResourceDefinitionNames": [
    [1, "plural", "string", 1],
    [2, "singular", "string"],
    [3, "shortNames", "[]string"],
    [4, "kind", "string", 1],
    [5, "listKind", "string"],
    [6, "categories", "[]string"],
  ],
  "apiextensions.v1.CustomResourceDefinitionSpec": [
    [1, "group", "string", 1],
    [3, "names", "apiextensions.v1.CustomResourceDefinitionNames"],
    [4, "scope", "string", 1],
    [7, "versions", "[]apiextensions.v1.CustomResourceDefinitionVersion"],
    [9, "conversion", "apiextensions.v1.CustomResourceConversion"],
    [10, "preserveUnknownFields", "bool"],
  ],
  "apiextensions.v1.CustomResourceDefinitionStatus": [
    [1, "conditions", "[]apiextensions.v1.CustomResourceDefinitionCondition"],
    [2, "acceptedNames", "apiextensions.v1.CustomResourceDefinitionNames"],
    [3, "storedVersions", "[]string"],
  ],
  "apiextensions.v1.CustomResourceDefinitionVersion": [
    [1, "name", "string", 1],
    [2, "served", "bool", 1],
    [3, "storage", "bool", 1],
    [7, "deprecated", "bool"],
    [8, "deprecationWarning", "string", 1],
    [4, "schema", "apiextensions.v1.CustomResourceValidation"],
    [5, "subresources", "apiextensions.v1.CustomResourceSubresources"],
    [6, "additionalPrinterColumns", "[]apiextensions.v1.CustomResourceColumnDefinition"],
    [9, "selectableFields", "[]apiextensions.v1.SelectableField"],
  ],
  "apiextensions.v1.CustomResourceSubresourceScale": [
    [1, "specReplicasPath", "string", 1],
    [2, "statusReplicasPath", "string", 1],
    [3, "labelSelectorPath", "string", 1],
  ],
  "apiextensions.v1.CustomResourceSubresourceStatus": [],
  "apiextensions.v1.CustomResourceSubresources": [
    [1, "status", "apiextensions.v1.CustomResourceSubresourceStatus"],
    [2, "scale", "apiextensions.v1.CustomResourceSubresourceScale"],
  ],
  "apiextensions.v1.CustomResourceValidation": [
    [1, "openAPIV3Schema", "apiextensions.v1.JSONSchemaProps"],
  ],
  "apiextensions.v1.ExternalDocumentation": [
    [1, "description", "string"],
    [2, "url", "string"],
  ],
  "apiextensions.v1.JSON": [
    [1, "raw", "bytes"],
  ],
  "apiextensions.v1.JSONSchemaProps": [
    [1, "id", "string"],
    [2, "$schema", "string"],
    [3, "$ref", "string", 1],
    [4, "description", "string"],
    [5, "type", "string"],
    [6, "format", "string"],
    [7, "title", "string"],
    [8, "default", "apiextensions.v1.JSON"],
    [9, "maximum", "double", 1],
    [10, "exclusiveMaximum", "bool"],
    [11, "minimum", "double", 1],
    [12, "exclusiveMinimum", "bool"],
    [13, "maxLength", "int64", 1],
    [14, "minLength", "int64", 1],
    [15, "pattern", "string"],
    [16, "maxItems", "int64", 1],
    [17, "minItems", "int64", 1],
    [18, "uniqueItems", "bool"],
    [19, "multipleOf", "double", 1],
    [20, "enum", "[]apiextensions.v1.JSON"],
    [21, "maxProperties", "int64", 1],
    [22, "minProperties", "int64", 1],
    [23, "required", "[]string"],
    [24, "items", "apiextensions.v1.JSONSchemaPropsOrArray"],
    [25, "allOf", "[]apiextensions.v1.JSONSchemaProps"],
    [26, "oneOf", "[]apiextensions.v1.JSONSchemaProps"],
    [27, "anyOf", "[]apiextensions.v1.JSONSchemaProps"],
    [28, "not", "apiextensions.v1.JSONSchemaProps"],
    [29, "properties", "map:apiextensions.v1.JSONSchemaProps"],
    [30, "additionalProperties", "apiextensions.v1.JSONSchemaPropsOrBool"],
    [31, "patternProperties", "map:apiextensions.v1.JSONSchemaProps"],
    [32, "dependencies", "map:apiextensions.v1.JSONSchemaPropsOrStringArray"],
    [33, "additionalItems", "apiextensions.v1.JSONSchemaPropsOrBool"],
    [34, "definitions", "map:apiextensions.v1.JSONSchemaProps"],
    [35, "externalDocs", "apiextensions.v1.ExternalDocumentation"],
    [36, "example", "apiextensions.v1.JSON"],
    [37, "nullable", "bool"],
    [38, "x-kubernetes-preserve-unknown-fields", "bool", 1],
    [39, "x-kubernetes-embedded-resource", "bool"],
    [40, "x-kubernetes-int-or-string", "bool"],
    [41, "x-kubernetes-list-map-keys", "[]string"],
    [42, "x-kubernetes-list-type", "string", 1],
    [43, "x-kubernetes-map-type", "string", 1],
    [44, "x-kubernetes-validations", "[]apiextensions.v1.ValidationRule"],
  ],
  "apiextensions.v1.JSONSchemaPropsOrArray": [
    [1, "schema", "apiextensions.v1.JSONSchemaProps"],
    [2, "jSONSchemas", "[]apiextensions.v1.JSONSchemaProps"],
  ],
  "apiextensions.v1.JSONSchemaPropsOrBool": [
    [1, "allows", "bool", 1],
    [2, "schema", "apiextensions.v1.JSONSchemaProps"],
  ],
  "apiextensions.v1.JSONSchemaPropsOrStringArray": [
    [1, "schema", "apiextensions.v1.JSONSchemaProps"],
    [2, "property", "[]string"],
  ],
  "apiextensions.v1.SelectableField": [
    [1, "jsonPath", "string", 1],
  ],
  "apiextensions.v1.ServiceReference": [
    [1, "namespace", "string", 1],
    [2, "name", "string", 1],
    [3, "path", "string", 1],
    [4, "port", "int32", 1],
  ],
  "apiextensions.v1.ValidationRule": [
    [1, "rule", "string", 1],
    [2, "message", "string"],
    [3, "messageExpression", "string"],
    [4, "reason", "string", 1],
    [5, "fieldPath", "string"],
    [6, "optionalOldSelf", "bool", 1],
  ],
  "apiextensions.v1.WebhookClientConfig": [
    [3, "url", "string", 1],
    [1, "service", "apiextensions.v1.ServiceReference"],
    [2, "caBundle", "bytes"],
  ],
  "apiextensions.v1.WebhookConversion": [
    [2, "clientConfig", "apiextensions.v1.WebhookClientConfig"],
    [3, "conversionReviewVersions", "[]string"],
  ],
};
