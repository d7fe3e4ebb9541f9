import assert from "node:assert/strict";
import { parseRequestInfo } from "../../../apiserver/http/request_info.ts";

Deno.test("parseRequestInfo() resolves verb, group, namespace, resource and name", async (t) => {
  const cases: [string, string, Record<string, unknown>][] = [
    ["GET", "/api/v1/namespaces", { verb: "list", resource: "namespaces", namespace: "" }],
    ["GET", "/api/v1/namespaces/ns1", { verb: "get", resource: "namespaces", name: "ns1" }],
    ["GET", "/api/v1/namespaces/ns1/status", {
      verb: "get",
      resource: "namespaces",
      name: "ns1",
      subresource: "status",
    }],
    ["GET", "/api/v1/namespaces/ns1/configmaps", {
      verb: "list",
      resource: "configmaps",
      namespace: "ns1",
    }],
    ["GET", "/api/v1/namespaces/ns1/configmaps?watch=1", { verb: "watch" }],
    ["GET", "/api/v1/namespaces/ns1/configmaps?watch=false", { verb: "list" }],
    ["GET", "/api/v1/namespaces/ns1/configmaps?watch", { verb: "watch" }],
    ["HEAD", "/api/v1/namespaces/ns1/configmaps/a", { verb: "get", name: "a" }],
    ["POST", "/api/v1/namespaces/ns1/configmaps", { verb: "create" }],
    ["PUT", "/api/v1/namespaces/ns1/pods/p/status", {
      verb: "update",
      name: "p",
      subresource: "status",
    }],
    ["PATCH", "/api/v1/nodes/n1", { verb: "patch", resource: "nodes", name: "n1" }],
    ["DELETE", "/api/v1/namespaces/ns1/configmaps/a", { verb: "delete", name: "a" }],
    ["DELETE", "/api/v1/namespaces/ns1/configmaps", { verb: "deletecollection" }],
    ["GET", "/api/v1/configmaps", { verb: "list", namespace: "", resource: "configmaps" }],
    ["GET", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1", {
      apiGroup: "coordination.k8s.io",
      apiVersion: "v1",
      namespace: "kube-node-lease",
      resource: "leases",
      name: "n1",
    }],
    ["GET", "/api/v1/watch/namespaces/ns1/configmaps", {
      verb: "watch",
      legacyWatch: true,
      namespace: "ns1",
    }],
    ["GET", "/api/v1/namespaces/ns1/configmaps?fieldSelector=metadata.name%3Da", {
      verb: "list",
      name: "a",
    }],
    ["GET", "/api", { isResourceRequest: false, verb: "get" }],
    ["GET", "/api/v1", { isResourceRequest: false }],
    ["GET", "/apis/coordination.k8s.io/v1", { isResourceRequest: false }],
    ["GET", "/healthz", { isResourceRequest: false, verb: "get" }],
  ];
  for (const [method, path, want] of cases) {
    await t.step(`${method} ${path}`, () => {
      const info = parseRequestInfo(method, new URL(`https://h${path}`));
      const expected = { isResourceRequest: true, ...want };
      for (const [k, v] of Object.entries(expected)) {
        assert.deepEqual(info[k as keyof typeof info], v, `${k} of ${method} ${path}`);
      }
    });
  }
});
