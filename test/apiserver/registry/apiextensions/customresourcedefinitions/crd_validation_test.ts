/**
 * validateCrd() and validateCrdUpdate(): cases of apiextensions-apiserver's validation_test.go
 * (TestValidateCustomResourceDefinition, TestValidateCustomResourceDefinitionUpdate,
 * TestValidateCustomResourceDefinitionStoredVersions, Test_validateDeprecationWarning) written
 * in v1 form, matched as kube matches them (error type and field), with kube's messages where
 * they are facts.
 */
import assert from "node:assert/strict";
import type { KubeObject } from "../../../../../shared/api/meta/v1/types.ts";
import type { FieldError } from "../../../../../shared/errors/status_error.ts";
import { fieldErrorMessage } from "../../../../../shared/errors/status_error.ts";
import {
  validateCrd,
  validateCrdStatusUpdate,
  validateCrdUpdate,
} from "../../../../../apiserver/registry/apiextensions/customresourcedefinitions/crd_validation.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const SCHEMA = { openAPIV3Schema: { type: "object" } };

function version(name: string, storage: boolean, extra: Json = {}): Json {
  return { name, served: true, storage, schema: SCHEMA, ...extra };
}

/** A valid v1 CRD `plural.group.com` with two versions; `spec` and `status` are merged in. */
function crd(spec: Json = {}, status: Json = {}, meta: Json = {}): Json {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "plural.group.com", ...meta },
    spec: {
      group: "group.com",
      scope: "Cluster",
      names: { plural: "plural", singular: "singular", kind: "Plural", listKind: "PluralList" },
      versions: [version("version", true), version("version2", false)],
      conversion: { strategy: "None" },
      ...spec,
    },
    status: { storedVersions: ["version"], ...status },
  };
}

/** `<type> <field>`, sorted, as kube's validationMatch compares. */
function matches(errs: FieldError[]): string[] {
  return errs.map((e) => `${e.type} ${e.field}`).sort();
}

function webhook(clientConfig: Json, reviewVersions: string[] = ["v1"]): Json {
  return {
    conversion: {
      strategy: "Webhook",
      webhook: { clientConfig, conversionReviewVersions: reviewVersions },
    },
  };
}

Deno.test("validateCrd() accepts a valid CRD", () => {
  assert.deepEqual(validateCrd(crd()), []);
});

Deno.test("validateCrd() reports missing values as kube does", () => {
  const errs = validateCrd(
    { metadata: { name: "plural.group.com" }, spec: {}, status: {} } as KubeObject,
  );
  assert.deepEqual(matches(errs), [
    "FieldValueInvalid metadata.name",
    "FieldValueInvalid spec.versions",
    "FieldValueInvalid status.storedVersions",
    "FieldValueRequired spec.group",
    "FieldValueRequired spec.names.kind",
    "FieldValueRequired spec.names.listKind",
    "FieldValueRequired spec.names.plural",
    "FieldValueRequired spec.names.singular",
    "FieldValueRequired spec.scope",
  ]);
  const messages = errs.map(fieldErrorMessage);
  assert.ok(messages.includes(
    'metadata.name: Invalid value: "plural.group.com": must be spec.names.plural+"."+spec.group',
  ));
  assert.ok(
    messages.includes(
      "status.storedVersions: Invalid value: []: must have at least one stored version",
    ),
  );
});

Deno.test("validateCrd() reports bad names (bad names 01 and 02)", () => {
  const bad = "value()*a";
  const names = { plural: "pl()*ural", singular: bad, kind: bad, listKind: bad };
  const errs = validateCrd(
    crd(
      { group: "group", scope: "foo", names, versions: [] },
      { acceptedNames: names, storedVersions: [] },
      { name: "plural.group" },
    ),
  );
  assert.deepEqual(matches(errs), [
    "FieldValueInvalid metadata.name",
    "FieldValueInvalid spec.group",
    "FieldValueInvalid spec.names.kind",
    "FieldValueInvalid spec.names.listKind",
    "FieldValueInvalid spec.names.listKind",
    "FieldValueInvalid spec.names.plural",
    "FieldValueInvalid spec.names.singular",
    "FieldValueInvalid spec.versions",
    "FieldValueInvalid status.acceptedNames.kind",
    "FieldValueInvalid status.acceptedNames.listKind",
    "FieldValueInvalid status.acceptedNames.listKind",
    "FieldValueInvalid status.acceptedNames.plural",
    "FieldValueInvalid status.acceptedNames.singular",
    "FieldValueInvalid status.storedVersions",
    "FieldValueNotSupported spec.scope",
  ]);
  const two = validateCrd(
    crd(
      {
        group: "group.c(*&om",
        scope: "",
        names: { plural: "plural", singular: "singular", kind: "matching", listKind: "matching" },
        versions: [version("version", true)],
      },
      { acceptedNames: { plural: "plural", kind: "matching", listKind: "matching" } },
      { name: "plural.group" },
    ),
  );
  assert.deepEqual(matches(two), [
    "FieldValueInvalid metadata.name",
    "FieldValueInvalid spec.group",
    "FieldValueInvalid spec.names.listKind",
    "FieldValueInvalid status.acceptedNames.listKind",
    "FieldValueRequired spec.scope",
  ]);
  assert.ok(
    two.map(fieldErrorMessage).includes(
      'spec.names.listKind: Invalid value: "matching": kind and listKind may not be the same',
    ),
  );
  assert.ok(
    validateCrd(crd({ group: "group" }, {}, { name: "plural.group" })).map(fieldErrorMessage)
      .includes('spec.group: Invalid value: "group": should be a domain with at least one dot'),
  );
});

Deno.test("validateCrd() checks the conversion webhook as kube does", () => {
  const svc = (port: number) => ({ service: { name: "n", namespace: "ns", port } });
  assert.deepEqual(matches(validateCrd(crd(webhook(svc(0))))), [
    "FieldValueInvalid spec.conversion.webhookClientConfig.service.port",
  ]);
  assert.deepEqual(matches(validateCrd(crd(webhook(svc(65536))))), [
    "FieldValueInvalid spec.conversion.webhookClientConfig.service.port",
  ]);
  assert.deepEqual(validateCrd(crd(webhook({ ...svc(443), caBundle: "Cg==" }))), []);
  const both = { url: "https://example.com/webhook", service: { name: "n", namespace: "ns" } };
  assert.deepEqual(matches(validateCrd(crd(webhook(both)))), [
    "FieldValueRequired spec.conversion.webhookClientConfig",
  ]);
  assert.deepEqual(matches(validateCrd(crd(webhook({ url: "" })))), [
    "FieldValueInvalid spec.conversion.webhookClientConfig.url",
    "FieldValueInvalid spec.conversion.webhookClientConfig.url",
  ]);
  const url = { url: "https://example.com/webhook" };
  assert.deepEqual(
    matches(validateCrd(crd({ conversion: { strategy: "None", webhook: { clientConfig: url } } }))),
    ["FieldValueForbidden spec.conversion.webhookClientConfig"],
  );
  assert.deepEqual(
    matches(validateCrd(
      crd({ conversion: { strategy: "None", webhook: { conversionReviewVersions: ["v1beta1"] } } }),
    )),
    ["FieldValueForbidden spec.conversion.conversionReviewVersions"],
  );
  const invalidVersion = validateCrd(crd(webhook(url, ["invalid-version"])));
  assert.deepEqual(matches(invalidVersion), [
    "FieldValueInvalid spec.conversion.conversionReviewVersions",
  ]);
  assert.match(
    fieldErrorMessage(invalidVersion[0]),
    /^spec\.conversion\.conversionReviewVersions: Invalid value: .*: must include at least one of v1, v1beta1$/,
  );
  assert.deepEqual(matches(validateCrd(crd(webhook(url, ["0v"])))), [
    "FieldValueInvalid spec.conversion.conversionReviewVersions",
    "FieldValueInvalid spec.conversion.conversionReviewVersions[0]",
  ]);
  assert.deepEqual(validateCrd(crd(webhook(url, ["invalid-version", "v1beta1"]))), []);
  assert.deepEqual(matches(validateCrd(crd(webhook(url, ["v1beta1", "v1beta1"])))), [
    "FieldValueInvalid spec.conversion.conversionReviewVersions[1]",
  ]);
  assert.deepEqual(matches(validateCrd(crd({ conversion: { strategy: "Webhook" } }))), [
    "FieldValueRequired spec.conversion.conversionReviewVersions",
    "FieldValueRequired spec.conversion.webhookClientConfig",
  ]);
  assert.deepEqual(
    matches(validateCrd(crd({ conversion: { strategy: "non_existing_conversion" } }))),
    ["FieldValueNotSupported spec.conversion.strategy"],
  );
});

Deno.test("validateCrd() needs exactly one storage version, listed in storedVersions", () => {
  const none = validateCrd(
    crd({ versions: [version("version", false), version("version2", false)] }),
  );
  assert.deepEqual(matches(none), ["FieldValueInvalid spec.versions"]);
  assert.ok(
    none.map(fieldErrorMessage).some((m) =>
      m.endsWith("must have exactly one version marked as storage version")
    ),
  );
  assert.deepEqual(
    matches(validateCrd(crd({ versions: [version("version", true), version("version2", true)] }))),
    ["FieldValueInvalid spec.versions", "FieldValueInvalid status.storedVersions"],
  );
  const missing = validateCrd(
    crd({ versions: [version("version", false), version("version2", true)] }),
  );
  assert.deepEqual(matches(missing), ["FieldValueInvalid status.storedVersions"]);
  assert.match(fieldErrorMessage(missing[0]), /must have the storage version version2$/);
  assert.deepEqual(
    matches(validateCrd(crd({}, { storedVersions: [] }))),
    ["FieldValueInvalid status.storedVersions"],
  );
  assert.deepEqual(
    matches(validateCrd(crd({}, { storedVersions: ["version", "gone"] }))),
    ["FieldValueInvalid status.storedVersions[1]"],
  );
  const dup = validateCrd(crd({ versions: [version("version", true), version("version", false)] }));
  assert.ok(
    dup.map(fieldErrorMessage).some((m) => m.endsWith("must contain unique version names")),
  );
});

Deno.test("validateCrd() checks subresources, columns and schemas per version or at the top", () => {
  const scale = (labelSelectorPath?: string) => ({
    scale: {
      specReplicasPath: ".spec.replicas",
      statusReplicasPath: ".status.replicas",
      labelSelectorPath,
    },
  });
  const versions = [
    version("version0", true, { subresources: scale() }),
    version("version1", false, { subresources: scale(".status.labelSelector") }),
    version("version2", false, { subresources: scale(".spec.labelSelector") }),
    version("version3", false, { subresources: scale(".labelSelector") }),
  ];
  const errs = validateCrd(crd({ versions }, { storedVersions: ["version0"] }));
  assert.deepEqual(matches(errs), [
    "FieldValueInvalid spec.versions[3].subresources.scale.labelSelectorPath",
  ]);
  assert.match(
    fieldErrorMessage(errs[0]),
    /should be a json path under either \.spec or \.status$/,
  );

  // Identical per-version subresources are validated once, at the top level (kube's internal form).
  const same = [
    version("version", true, { subresources: { scale: { specReplicasPath: "spec.x" } } }),
  ];
  assert.deepEqual(matches(validateCrd(crd({ versions: same }))), [
    "FieldValueInvalid spec.subresources.scale.specReplicasPath",
    "FieldValueRequired spec.subresources.scale.statusReplicasPath",
  ]);

  const columns = [
    { name: "", type: "bogus", format: "weird", jsonPath: "spec.x" },
    { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
  ];
  const colErrs = validateCrd(crd({
    versions: [
      version("version", true, { additionalPrinterColumns: columns }),
      version("version2", false),
    ],
  }));
  assert.deepEqual(matches(colErrs), [
    "FieldValueInvalid spec.versions[0].additionalPrinterColumns[0].JSONPath",
    "FieldValueInvalid spec.versions[0].additionalPrinterColumns[0].format",
    "FieldValueInvalid spec.versions[0].additionalPrinterColumns[0].type",
    "FieldValueRequired spec.versions[0].additionalPrinterColumns[0].name",
  ]);
  assert.ok(
    colErrs.map(fieldErrorMessage).includes(
      'spec.versions[0].additionalPrinterColumns[0].type: Invalid value: "bogus": must be one of boolean,date,integer,number,string',
    ),
  );

  const noSchema = validateCrd(
    crd({ versions: [{ name: "version", served: true, storage: true }] }),
  );
  assert.deepEqual(matches(noSchema), [
    "FieldValueRequired spec.versions[0].schema.openAPIV3Schema",
  ]);
  assert.equal(
    fieldErrorMessage(noSchema[0]),
    "spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required",
  );
  assert.deepEqual(matches(validateCrd(crd({ preserveUnknownFields: true }))), [
    "FieldValueInvalid spec.preserveUnknownFields",
  ]);
});

Deno.test("validateCrd() requires API approval for protected groups", () => {
  const k8s = (annotations?: Record<string, string>) =>
    crd({ group: "group.k8s.io" }, {}, { name: "plural.group.k8s.io", annotations });
  const missing = validateCrd(k8s());
  assert.deepEqual(matches(missing), [
    "FieldValueRequired metadata.annotations[api-approved.kubernetes.io]",
  ]);
  assert.deepEqual(
    validateCrd(k8s({ "api-approved.kubernetes.io": "https://github.com/x/1" })),
    [],
  );
  assert.deepEqual(validateCrd(k8s({ "api-approved.kubernetes.io": "unapproved, testing" })), []);
  assert.deepEqual(matches(validateCrd(k8s({ "api-approved.kubernetes.io": "yes" }))), [
    "FieldValueInvalid metadata.annotations[api-approved.kubernetes.io]",
  ]);
});

Deno.test("validateCrd() checks deprecation warnings (Test_validateDeprecationWarning)", () => {
  const warn = (deprecated: boolean, deprecationWarning: string) =>
    validateCrd(crd({
      versions: [
        version("version", true, { deprecated, deprecationWarning }),
        version("version2", false),
      ],
    })).map(fieldErrorMessage);
  assert.deepEqual(warn(false, "x"), [
    'spec.versions[0].deprecationWarning: Invalid value: "x": can only be set for deprecated versions',
  ]);
  assert.deepEqual(warn(true, ""), [
    'spec.versions[0].deprecationWarning: Invalid value: "": must not be an empty string',
  ]);
  assert.match(warn(true, "x".repeat(257))[0], /must be <= 256 characters long$/);
  assert.match(
    warn(true, "a\tb")[0],
    /must only contain printable UTF-8 characters; non-printable character found at index 1$/,
  );
  assert.deepEqual(warn(true, "use v2 ✓"), []);
});

Deno.test("validateCrdUpdate() keeps group and plural, and scope and kind once established", () => {
  const old = crd();
  const next = crd({ group: "other.com", names: { ...old.spec.names, plural: "others" } });
  next.metadata.name = "plural.group.com";
  assert.deepEqual(matches(validateCrdUpdate(next, old)), [
    "FieldValueInvalid spec.group",
    "FieldValueInvalid spec.names.plural",
  ]);
  const rescoped = crd({
    scope: "Namespaced",
    names: { ...old.spec.names, kind: "Other", listKind: "OtherList" },
  });
  assert.deepEqual(validateCrdUpdate(rescoped, old), []);
  const established = crd({}, { conditions: [{ type: "Established", status: "True" }] });
  assert.deepEqual(matches(validateCrdUpdate(rescoped, established)), [
    "FieldValueInvalid spec.names.kind",
    "FieldValueInvalid spec.scope",
  ]);
  assert.equal(
    fieldErrorMessage(validateCrdUpdate(rescoped, established)[0]),
    'spec.scope: Invalid value: "Namespaced": field is immutable',
  );
  // An old CRD without schemas does not make them required now.
  const schemaless = crd({ versions: [{ name: "version", served: true, storage: true }] });
  assert.deepEqual(validateCrdUpdate(schemaless, schemaless), []);
  // Unrecognized review versions stay allowed when the old CRD had only those.
  const url = { url: "https://example.com/webhook" };
  const oldHook = crd(webhook(url, ["v9"]));
  assert.deepEqual(validateCrdUpdate(crd(webhook(url, ["v9"])), oldHook), []);
  assert.deepEqual(matches(validateCrdUpdate(crd(webhook(url, ["v9"])), old)), [
    "FieldValueInvalid spec.conversion.conversionReviewVersions",
  ]);
});

Deno.test("validateCrdStatusUpdate() validates the accepted names only", () => {
  const c = crd({}, { acceptedNames: { plural: "Bad!", kind: "Plural" }, storedVersions: [] });
  assert.deepEqual(matches(validateCrdStatusUpdate(c)), [
    "FieldValueInvalid status.acceptedNames.plural",
  ]);
});
