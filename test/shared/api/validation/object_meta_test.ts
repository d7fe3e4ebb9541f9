import assert from "node:assert/strict";
import {
  generateName,
  TOTAL_ANNOTATION_SIZE_LIMIT_BYTES,
  validateObjectMeta,
  validateObjectMetaUpdate,
} from "../../../../shared/api/validation/object_meta.ts";
import {
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  nameIsPathSegment,
} from "../../../../shared/api/validation/name_validators.ts";
import {
  GENERATE_NAME_ALPHABET,
  MAX_GENERATED_NAME_PREFIX_LENGTH,
} from "../../../../shared/api/validation/generate_name.ts";
import { fieldErrorMessage } from "../../../../shared/errors/status_error.ts";

function messages(errs: ReturnType<typeof validateObjectMeta>): string[] {
  return errs.map(fieldErrorMessage);
}

Deno.test("validateObjectMeta() accepts valid metadata", () => {
  assert.deepEqual(
    validateObjectMeta({
      name: "cm-1",
      namespace: "default",
      labels: { "app.kubernetes.io/name": "web", tier: "" },
      annotations: { "Example.com/Note": "anything at all" },
      finalizers: ["kubernetes.io/pv-protection"],
      ownerReferences: [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: "rs", uid: "u1" }],
    }, { namespaced: true }),
    [],
  );
});

Deno.test("validateObjectMeta() reports each problem as Kubernetes does", async (t) => {
  const cases: [string, Parameters<typeof validateObjectMeta>, string[]][] = [
    ["missing name", [{ namespace: "ns" }, { namespaced: true }], [
      "metadata.name: Required value: name or generateName is required",
    ]],
    ["missing namespace", [{ name: "a" }, { namespaced: true }], [
      "metadata.namespace: Required value",
    ]],
    ["namespace on cluster kind", [{ name: "a", namespace: "x" }, { namespaced: false }], [
      "metadata.namespace: Forbidden: not allowed on this type",
    ]],
    ["bad namespace", [{ name: "a", namespace: "a.b" }, { namespaced: true }], [
      'metadata.namespace: Invalid value: "a.b": must not contain dots',
    ]],
    ["name not a label", [{ name: "a.b" }, { namespaced: false, nameIsLabel: true }], [
      'metadata.name: Invalid value: "a.b": must not contain dots',
    ]],
    ["name validator", [{ name: "a.b" }, { namespaced: false, nameValidator: nameIsDNSLabel }], [
      'metadata.name: Invalid value: "a.b": must not contain dots',
    ]],
    ["negative generation", [{ name: "a", generation: -1 }, { namespaced: false }], [
      "metadata.generation: Invalid value: -1: must be greater than or equal to 0",
    ]],
    ["bad label value", [{ name: "a", labels: { k: "-v" } }, { namespaced: false }], [
      "metadata.labels: Invalid value: \"-v\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    ]],
    ["bad label key", [{ name: "a", labels: { "/k": "v" } }, { namespaced: false }], [
      'metadata.labels: Invalid value: "/k": prefix part must be non-empty',
    ]],
    ["bad annotation key", [{ name: "a", annotations: { "a b": "" } }, { namespaced: false }], [
      "metadata.annotations: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ]],
    [
      "annotations too large",
      [{ name: "a", annotations: { k: "x".repeat(TOTAL_ANNOTATION_SIZE_LIMIT_BYTES) } }, {
        namespaced: false,
      }],
      ["metadata.annotations: Too long: may not be more than 262144 bytes"],
    ],
    ["bad finalizer", [{ name: "a", finalizers: ["a/b/c"] }, { namespaced: false }], [
      "metadata.finalizers: Invalid value: \"a/b/c\": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ]],
    [
      "orphan and foreground",
      [{ name: "a", finalizers: ["orphan", "foregroundDeletion"] }, { namespaced: false }],
      [
        'metadata.finalizers: Invalid value: ["orphan","foregroundDeletion"]: finalizer orphan and foregroundDeletion cannot be both set',
      ],
    ],
    [
      "empty owner reference",
      [{ name: "a", ownerReferences: [{ apiVersion: "", kind: "", name: "", uid: "" }] }, {
        namespaced: false,
      }],
      [
        'metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty',
        'metadata.ownerReferences.kind: Invalid value: "": kind must not be empty',
        'metadata.ownerReferences.name: Invalid value: "": name must not be empty',
        'metadata.ownerReferences.uid: Invalid value: "": uid must not be empty',
      ],
    ],
    [
      "two controllers",
      [{
        name: "a",
        ownerReferences: [
          { apiVersion: "v1", kind: "A", name: "x", uid: "1", controller: true },
          { apiVersion: "v1", kind: "B", name: "y", uid: "2", controller: true },
        ],
      }, { namespaced: false }],
      [
        'Only one reference can have Controller set to true. Found "true" in references for A/x and B/y',
      ],
    ],
    ["generateName invalid", [{ generateName: "Bad-" }, { namespaced: false }], [
      "metadata.generateName: Invalid value: \"Bad-\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      "metadata.name: Required value: name or generateName is required",
    ]],
  ];
  for (const [name, args, want] of cases) {
    await t.step(name, () => {
      const got = messages(validateObjectMeta(...args));
      if (name === "two controllers") assert.ok(got[0].endsWith(want[0]), got[0]);
      else assert.deepEqual(got, want);
    });
  }
});

Deno.test("nameIsDNSSubdomain() accepts a generateName prefix ending in a dash", () => {
  assert.deepEqual(nameIsDNSSubdomain("web-", true), []);
  assert.notDeepEqual(nameIsDNSSubdomain("web-", false), []);
});

Deno.test("validateObjectMetaUpdate() enforces immutability and finalizer rules", () => {
  const old = {
    name: "a",
    namespace: "ns",
    uid: "u",
    resourceVersion: "5",
    generation: 2,
    deletionTimestamp: "2024-01-01T00:00:00Z",
    finalizers: ["f1"],
  };
  assert.deepEqual(validateObjectMetaUpdate({ ...old }, old), []);
  const got = validateObjectMetaUpdate(
    { ...old, name: "b", resourceVersion: "", generation: 1, finalizers: ["f1", "f2"] },
    old,
  ).map(fieldErrorMessage);
  assert.deepEqual(got, [
    'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"f2"}',
    'metadata.resourceVersion: Invalid value: "": must be specified for an update',
    "metadata.generation: Invalid value: 1: must not be decremented",
    'metadata.name: Invalid value: "b": field is immutable',
  ]);
});

Deno.test("generateName() appends five characters from Kubernetes' alphabet", () => {
  for (let i = 0; i < 50; i++) {
    const name = generateName("web-");
    assert.match(name, /^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  }
  assert.equal(GENERATE_NAME_ALPHABET, "bcdfghjklmnpqrstvwxz2456789");
});

Deno.test("generateName() cuts the prefix to 58 characters", () => {
  const name = generateName("x".repeat(100));
  assert.equal(MAX_GENERATED_NAME_PREFIX_LENGTH, 58);
  assert.equal(name.length, 63);
  assert.ok(name.startsWith("x".repeat(58)));
});

Deno.test("generateName() draws from the injected random source without bias", () => {
  // 27..31 are rejected, 0 maps to 'b', 26 to '9'.
  const bytes = [31, 27, 0, 26, 32 + 1, 255, 2, 3];
  let i = 0;
  const name = generateName("p-", (n) => Uint8Array.from({ length: n }, () => bytes[i++ % 8]));
  assert.equal(name, "p-b9cdf");
});

Deno.test("validateObjectMeta() refuses names storage cannot hold, even where the kind's rule allows them", () => {
  for (const name of ["\u0000\r\n", "a\u0000b", "x\ud800"]) {
    const errs = validateObjectMeta({ name }, {
      namespaced: false,
      nameValidator: nameIsPathSegment,
    });
    assert.deepEqual(errs.map((e) => [e.field, e.detail]), [
      ["metadata.name", "must not contain NUL characters or lone surrogates"],
    ]);
  }
  assert.deepEqual(
    validateObjectMeta({ name: "a\r\nb" }, { namespaced: false, nameValidator: nameIsPathSegment }),
    [],
  );
});
