import { apiextensionsV1Messages } from "../../../../shared/codec/protobuf/schema/apiextensions_v1.ts";
import { groupTableChecks } from "./_group_table_checks.ts";

groupTableChecks({
  messagesName: "apiextensionsV1Messages",
  messages: apiextensionsV1Messages,
  gv: "apiextensions.k8s.io/v1",
  // [message, json, number, keepZero], read from apiextensions/v1 generated.proto and types.go
  // (v0.32).
  fields: [
    ["apiextensions.v1.CustomResourceDefinitionSpec", "versions", 7, false],
    ["apiextensions.v1.CustomResourceDefinitionSpec", "conversion", 9, false],
    ["apiextensions.v1.CustomResourceDefinitionSpec", "preserveUnknownFields", 10, false],
    ["apiextensions.v1.CustomResourceDefinitionVersion", "served", 2, true],
    ["apiextensions.v1.CustomResourceDefinitionVersion", "deprecationWarning", 8, true],
    ["apiextensions.v1.CustomResourceDefinitionVersion", "selectableFields", 9, false],
    ["apiextensions.v1.JSONSchemaProps", "$ref", 3, true],
    ["apiextensions.v1.JSONSchemaProps", "maximum", 9, true],
    ["apiextensions.v1.JSONSchemaProps", "x-kubernetes-preserve-unknown-fields", 38, true],
    ["apiextensions.v1.JSONSchemaProps", "x-kubernetes-validations", 44, false],
    ["apiextensions.v1.WebhookClientConfig", "url", 3, true],
    ["apiextensions.v1.ValidationRule", "optionalOldSelf", 6, true],
  ],
  kinds: ["CustomResourceDefinition", "CustomResourceDefinitionList", "Status", "DeleteOptions"],
  fixture: "apiextensions_v1.json",
});
