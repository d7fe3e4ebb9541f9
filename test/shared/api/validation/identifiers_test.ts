import assert from "node:assert/strict";
import {
  isConfigMapKey,
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  isValidPathSegmentName,
} from "../../../../shared/api/validation/identifiers.ts";

const LABEL_RULE =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const SUBDOMAIN_RULE =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const NAME_PART_RULE =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

Deno.test("isDNS1123Label() returns Kubernetes' messages", async (t) => {
  const cases: [string, string[]][] = [
    ["abc", []],
    ["a-1", []],
    ["1", []],
    ["a".repeat(63), []],
    ["a".repeat(64), ["must be no more than 63 characters"]],
    ["a.b", ["must not contain dots"]],
    ["ABC", [LABEL_RULE]],
    ["-a", [LABEL_RULE]],
    ["", [LABEL_RULE]],
  ];
  for (const [v, want] of cases) {
    await t.step(JSON.stringify(v).slice(0, 20), () => assert.deepEqual(isDNS1123Label(v), want));
  }
});

Deno.test("isDNS1123Subdomain() returns Kubernetes' messages", async (t) => {
  const cases: [string, string[]][] = [
    ["example.com", []],
    ["a", []],
    ["a".repeat(253), []],
    ["a".repeat(254), ["must be no more than 253 characters"]],
    ["a..b", [SUBDOMAIN_RULE]],
    ["Foo", [SUBDOMAIN_RULE]],
    ["a_b", [SUBDOMAIN_RULE]],
    ["", [SUBDOMAIN_RULE]],
  ];
  for (const [v, want] of cases) {
    await t.step(
      JSON.stringify(v).slice(0, 20),
      () => assert.deepEqual(isDNS1123Subdomain(v), want),
    );
  }
});

Deno.test("isDNS1035Label() requires a leading letter", () => {
  assert.deepEqual(isDNS1035Label("a1"), []);
  assert.equal(isDNS1035Label("1a").length, 1);
  assert.match(isDNS1035Label("1a")[0], /^a DNS-1035 label must consist/);
});

Deno.test("isQualifiedName() checks prefix and name parts", async (t) => {
  const cases: [string, string[]][] = [
    ["MyName", []],
    ["my.name", []],
    ["example.com/MyName", []],
    ["k8s.io/a_b", []],
    ["/a", ["prefix part must be non-empty"]],
    ["a/", ["name part must be non-empty", NAME_PART_RULE]],
    ["Example.com/a", ["prefix part " + SUBDOMAIN_RULE]],
    ["a".repeat(64), ["name part must be no more than 63 characters"]],
    ["-a", [NAME_PART_RULE]],
    [
      "a/b/c",
      [
        "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
      ],
    ],
  ];
  for (const [v, want] of cases) {
    await t.step(JSON.stringify(v).slice(0, 20), () => assert.deepEqual(isQualifiedName(v), want));
  }
});

Deno.test("isValidLabelValue() allows empty and checks length and characters", () => {
  assert.deepEqual(isValidLabelValue(""), []);
  assert.deepEqual(isValidLabelValue("My_value-1.2"), []);
  assert.deepEqual(isValidLabelValue("a".repeat(64)), ["must be no more than 63 characters"]);
  assert.equal(isValidLabelValue("-x").length, 1);
  assert.match(isValidLabelValue("-x")[0], /^a valid label must be an empty string/);
});

Deno.test("isValidPathSegmentName() rejects dots, slashes and percent", () => {
  assert.deepEqual(isValidPathSegmentName("ok:name"), []);
  assert.deepEqual(isValidPathSegmentName(".."), ["may not be '..'"]);
  assert.deepEqual(isValidPathSegmentName("a/b%"), ["may not contain '/'", "may not contain '%'"]);
});

Deno.test("isConfigMapKey() checks ConfigMap and Secret keys as Kubernetes does", async (t) => {
  const regex =
    "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";
  const cases: [string, string[]][] = [
    ["key.name", []],
    ["KEY_NAME-1", []],
    ["a b", [regex]],
    [".", ["must not be '.'"]],
    ["..", ["must not be '..'"]],
    ["..a", ["must not start with '..'"]],
    ["a".repeat(254), ["must be no more than 253 characters"]],
  ];
  for (const [key, want] of cases) {
    await t.step(key.slice(0, 20), () => assert.deepEqual(isConfigMapKey(key), want));
  }
});
