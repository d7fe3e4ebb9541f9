import assert from "node:assert/strict";
import { admissionRequestOf } from "../../../apiserver/admission/admission_request.ts";
import type { KindDef } from "../../../apiserver/registry/generic/kind.ts";

const deployments = {
  group: "apps",
  version: "v1",
  kind: "Deployment",
  plural: "deployments",
  singular: "deployment",
  namespaced: true,
  subresources: [{
    name: "scale",
    verbs: ["get", "update"],
    requestKind: { group: "autoscaling", version: "v1", kind: "Scale" },
  }],
  strategy: { validate: () => [] },
} as unknown as KindDef;

Deno.test("admissionRequestOf() builds Kubernetes' AdmissionRequest", async () => {
  const object = { metadata: { name: "d", namespace: "ns" } };
  const req = await admissionRequestOf({
    operation: "UPDATE",
    kind: deployments,
    namespace: "ns",
    name: "d",
    subresource: "scale",
    object,
    oldObject: object,
    user: { username: "alice", groups: ["devs"], extra: { k: ["v"] } },
    dryRun: true,
  }, { uid: "u1", includeObjects: true });
  assert.deepEqual(req, {
    uid: "u1",
    kind: { group: "autoscaling", version: "v1", kind: "Scale" },
    resource: { group: "apps", version: "v1", resource: "deployments" },
    subResource: "scale",
    requestKind: { group: "autoscaling", version: "v1", kind: "Scale" },
    requestResource: { group: "apps", version: "v1", resource: "deployments" },
    requestSubResource: "scale",
    name: "d",
    namespace: "ns",
    operation: "UPDATE",
    userInfo: { username: "alice", groups: ["devs"], extra: { k: ["v"] } },
    object,
    oldObject: object,
    dryRun: true,
    options: { kind: "UpdateOptions", apiVersion: "meta.k8s.io/v1", dryRun: ["All"] },
  });
  const del = await admissionRequestOf({
    operation: "DELETE",
    kind: deployments,
    namespace: "ns",
    name: "d",
    subresource: "",
    oldObject: object,
    dryRun: false,
  }, { includeObjects: true });
  assert.equal(del.object, null);
  assert.deepEqual(del.options, { kind: "DeleteOptions", apiVersion: "meta.k8s.io/v1" });
  assert.equal(del.uid, "");
});
