import assert from "node:assert/strict";
import { messageInfo } from "../../../../shared/codec/protobuf/message_table.ts";
import { protobufMessageName } from "../../../../shared/codec/protobuf/has_protobuf.ts";
import { SPECIAL_MESSAGES } from "../../../../shared/codec/protobuf/well_known.ts";
import { coreV1Messages } from "../../../../shared/codec/protobuf/schema/core_v1.ts";
import { metaV1Messages } from "../../../../shared/codec/protobuf/schema/meta_v1.ts";
import { coordinationV1Messages } from "../../../../shared/codec/protobuf/schema/coordination_v1.ts";
import { authenticationV1Messages } from "../../../../shared/codec/protobuf/schema/authentication_v1.ts";
import { authorizationV1Messages } from "../../../../shared/codec/protobuf/schema/authorization_v1.ts";
import { eventsV1Messages } from "../../../../shared/codec/protobuf/schema/events_v1.ts";

const tables = {
  coreV1Messages,
  metaV1Messages,
  coordinationV1Messages,
  authenticationV1Messages,
  authorizationV1Messages,
  eventsV1Messages,
};

Deno.test("messageInfo() resolves every message a field refers to, with unique field numbers", async (t) => {
  for (const [tableName, table] of Object.entries(tables)) {
    await t.step(tableName, () => {
      for (const name of Object.keys(table)) {
        const info = messageInfo(name);
        assert.ok(info, name);
        const numbers = new Set(info.fields.map((f) => f.no));
        assert.equal(numbers.size, info.fields.length, `${name}: duplicate field number`);
        const jsonNames = new Set(info.fields.map((f) => f.json));
        assert.equal(jsonNames.size, info.fields.length, `${name}: duplicate JSON name`);
        for (const f of info.fields) {
          if (f.kind !== "message") continue;
          const ref = f.message ?? "";
          assert.ok(SPECIAL_MESSAGES.has(ref) || messageInfo(ref), `${name}.${f.json} -> ${ref}`);
          if (f.inline) assert.ok(messageInfo(ref), `${name}.${f.json}: inline of a special type`);
        }
      }
    });
  }
});

Deno.test("messageInfo() carries the field numbers of kubernetes/api", async (t) => {
  // Spot checks read from the upstream generated.proto files (Kubernetes 1.32).
  const cases: [string, string, number][] = [
    ["meta.v1.ObjectMeta", "managedFields", 17],
    ["meta.v1.ObjectMeta", "creationTimestamp", 8],
    ["meta.v1.OwnerReference", "apiVersion", 5],
    ["meta.v1.Status", "code", 6],
    ["core.v1.PodSpec", "serviceAccountName", 8],
    ["core.v1.PodSpec", "tolerations", 22],
    ["core.v1.Container", "securityContext", 15],
    ["core.v1.NodeStatus", "nodeInfo", 7],
    ["core.v1.Secret", "immutable", 5],
    ["core.v1.ConfigMap", "binaryData", 3],
    ["coordination.v1.LeaseSpec", "renewTime", 4],
    ["authorization.v1.SubjectAccessReviewStatus", "denied", 4],
    ["authentication.v1.TokenReviewStatus", "audiences", 4],
    ["events.v1.Event", "regarding", 8],
  ];
  for (const [message, json, no] of cases) {
    await t.step(`${message}.${json}`, () => {
      const f = messageInfo(message)?.fields.find((x) => x.json === json);
      assert.equal(f?.no, no);
    });
  }
});

Deno.test("protobufMessageName() only names messages that exist", () => {
  for (
    const [apiVersion, kinds] of Object.entries({
      "v1": ["Pod", "PodList", "Node", "Binding", "ConfigMapList", "Status", "WatchEvent"],
      "authorization.k8s.io/v1": ["LocalSubjectAccessReview", "DeleteOptions"],
      "meta.k8s.io/v1": ["PartialObjectMetadata"],
    })
  ) {
    for (const kind of kinds) {
      const name = protobufMessageName(apiVersion, kind);
      assert.ok(name && messageInfo(name), `${apiVersion} ${kind}`);
    }
  }
});
