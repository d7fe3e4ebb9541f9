/**
 * The schema declaration of apiextensions.k8s.io/v1 (CustomResourceDefinition): required fields,
 * list types, merge markers and descriptions as Kubernetes 1.32's OpenAPI has them. Field names
 * and types come from the apiextensions/v1 descriptors. The required fields are documented only:
 * the CRD strategy judges their absence with apiextensions-apiserver's messages.
 *
 * @module
 */
import { ATOMIC_LIST, type GroupSchema, mergeList } from "../../schema/group_schema.ts";

/** apiextensions.k8s.io/v1. */
export const apiextensionsV1Schema: GroupSchema = {
  package: "apiextensions.v1",
  group: "apiextensions.k8s.io",
  version: "v1",
  openApiPrefix: "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1",
  kinds: ["CustomResourceDefinition", "CustomResourceDefinitionList"],
  types: {
    CustomResourceDefinition: {
      description:
        "CustomResourceDefinition represents a resource that should be exposed on the API " +
        "server.  Its name MUST be in the format <.spec.name>.<.spec.group>.",
      documentedRequired: ["spec"],
      fields: {
        spec: { description: "spec describes how the user wants the resources to appear" },
        status: {
          description: "status indicates the actual state of the CustomResourceDefinition",
        },
      },
    },
    CustomResourceDefinitionList: {
      description: "CustomResourceDefinitionList is a list of CustomResourceDefinition objects.",
      required: ["items"],
    },
    CustomResourceDefinitionSpec: {
      description:
        "CustomResourceDefinitionSpec describes how a user wants their resource to appear",
      documentedRequired: ["group", "names", "scope", "versions"],
      fields: {
        group: {
          description:
            "group is the API group of the defined custom resource. The custom resources are " +
            "served under `/apis/<group>/...`. Must match the name of the " +
            "CustomResourceDefinition (in the form `<names.plural>.<group>`).",
        },
        names: {
          description: "names specify the resource and kind names for the custom resource.",
        },
        scope: {
          description: "scope indicates whether the defined custom resource is cluster- or " +
            "namespace-scoped. Allowed values are `Cluster` and `Namespaced`.",
        },
        versions: {
          ...ATOMIC_LIST,
          description: "versions is the list of all API versions of the defined custom resource.",
        },
        conversion: { description: "conversion defines conversion settings for the CRD." },
        preserveUnknownFields: {
          description:
            "preserveUnknownFields indicates that object fields which are not specified in the " +
            "OpenAPI schema should be preserved when persisting to storage.",
        },
      },
    },
    CustomResourceDefinitionNames: {
      description:
        "CustomResourceDefinitionNames indicates the names to serve this CustomResourceDefinition",
      documentedRequired: ["plural", "kind"],
      fields: {
        plural: {
          description: "plural is the plural name of the resource to serve. Must be all lowercase.",
        },
        singular: {
          description: "singular is the singular name of the resource. It must be all lowercase. " +
            "Defaults to lowercased `kind`.",
        },
        shortNames: {
          ...ATOMIC_LIST,
          description: "shortNames are short names for the resource, exposed in API discovery.",
        },
        kind: { description: "kind is the serialized kind of the resource." },
        listKind: {
          description:
            'listKind is the serialized kind of the list for this resource. Defaults to "`kind`List".',
        },
        categories: {
          ...ATOMIC_LIST,
          description:
            "categories is a list of grouped resources this custom resource belongs to (e.g. 'all').",
        },
      },
    },
    CustomResourceDefinitionVersion: {
      description: "CustomResourceDefinitionVersion describes a version for CRD.",
      documentedRequired: ["name", "served", "storage"],
      fields: {
        name: { description: "name is the version name, e.g. “v1”, “v2beta1”, etc." },
        served: {
          description:
            "served is a flag enabling/disabling this version from being served via REST APIs",
        },
        storage: {
          description:
            "storage indicates this version should be used when persisting custom resources to " +
            "storage. There must be exactly one version with storage=true.",
        },
        schema: {
          description:
            "schema describes the schema used for validation, pruning, and defaulting of this " +
            "version of the custom resource.",
        },
        subresources: {
          description:
            "subresources specify what subresources this version of the defined custom resource have.",
        },
        additionalPrinterColumns: {
          ...ATOMIC_LIST,
          description:
            "additionalPrinterColumns specifies additional columns returned in Table output.",
        },
        selectableFields: {
          ...ATOMIC_LIST,
          description:
            "selectableFields specifies paths to fields that may be used as field selectors.",
        },
      },
    },
    CustomResourceColumnDefinition: {
      description: "CustomResourceColumnDefinition specifies a column for server side printing.",
      documentedRequired: ["name", "type", "jsonPath"],
    },
    CustomResourceConversion: {
      description: "CustomResourceConversion describes how to convert different versions of a CR.",
      documentedRequired: ["strategy"],
    },
    WebhookConversion: {
      description: "WebhookConversion describes how to call a conversion webhook",
      documentedRequired: ["conversionReviewVersions"],
      fields: { conversionReviewVersions: ATOMIC_LIST },
    },
    ServiceReference: { documentedRequired: ["namespace", "name"] },
    CustomResourceSubresourceScale: {
      documentedRequired: ["specReplicasPath", "statusReplicasPath"],
    },
    SelectableField: { documentedRequired: ["jsonPath"] },
    ValidationRule: {
      description:
        "ValidationRule describes a validation rule written in the CEL expression language.",
      documentedRequired: ["rule"],
    },
    CustomResourceDefinitionCondition: { documentedRequired: ["type", "status"] },
    CustomResourceDefinitionStatus: {
      description:
        "CustomResourceDefinitionStatus indicates the state of the CustomResourceDefinition",
      fields: {
        conditions: mergeList("type"),
        storedVersions: {
          ...ATOMIC_LIST,
          description:
            "storedVersions lists all versions of CustomResources that were ever persisted.",
        },
      },
    },
    JSONSchemaProps: {
      description:
        "JSONSchemaProps is a JSON-Schema following Specification Draft 4 (http://json-schema.org/).",
      fields: {
        "x-kubernetes-validations": {
          ...mergeList("rule"),
          description:
            "x-kubernetes-validations describes a list of validation rules written in the CEL " +
            "expression language.",
        },
      },
    },
  },
};
