import assert from "node:assert/strict";
import { hasProtobuf, protobufMessageName } from "../../../../shared/codec/protobuf/mod.ts";

Deno.test("hasProtobuf() answers for built-in kinds, lists, common meta kinds and others", async (t) => {
  const cases: [string, string, boolean][] = [
    ["v1", "Pod", true],
    ["v1", "PodList", true],
    ["v1", "Node", true],
    ["v1", "Namespace", true],
    ["v1", "Secret", true],
    ["v1", "Status", true],
    ["v1", "DeleteOptions", true],
    ["coordination.k8s.io/v1", "Lease", true],
    ["coordination.k8s.io/v1", "WatchEvent", true],
    ["authentication.k8s.io/v1", "SelfSubjectReview", true],
    ["authentication.k8s.io/v1", "TokenReview", true],
    ["authorization.k8s.io/v1", "SelfSubjectAccessReview", true],
    ["authorization.k8s.io/v1", "SelfSubjectRulesReview", true],
    ["events.k8s.io/v1", "EventList", true],
    ["meta.k8s.io/v1", "PartialObjectMetadataList", true],
    ["storage.k8s.io/v1", "StorageClass", true],
    ["scheduling.k8s.io/v1", "PriorityClassList", true],
    ["node.k8s.io/v1", "RuntimeClass", true],
    ["v1", "List", false],
    ["v1", "Widget", false],
    ["example.com/v1", "Widget", false],
    ["example.com/v1", "DeleteOptions", false],
    ["apiextensions.k8s.io/v1", "CustomResourceDefinition", true],
    ["apiextensions.k8s.io/v1", "CustomResourceDefinitionList", true],
    ["authentication.k8s.io/v1beta1", "SelfSubjectReview", false],
  ];
  for (const [apiVersion, kind, expected] of cases) {
    await t.step(
      `${apiVersion} ${kind}`,
      () => assert.equal(hasProtobuf(apiVersion, kind), expected),
    );
  }
});

Deno.test("protobufMessageName() names the message of a kind", () => {
  assert.equal(protobufMessageName("v1", "Pod"), "core.v1.Pod");
  assert.equal(protobufMessageName("events.k8s.io/v1", "Event"), "events.v1.Event");
  assert.equal(protobufMessageName("coordination.k8s.io/v1", "Status"), "meta.v1.Status");
  assert.equal(protobufMessageName("example.com/v1", "Widget"), undefined);
});
