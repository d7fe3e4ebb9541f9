/**
 * End-to-end: every error path of the foundation answers a Status object with a 4xx code,
 * never a 500: malformed bodies, mismatched kind/apiVersion/name/namespace, missing required
 * fields, unknown paths and methods, unacceptable Accept and unsupported Content-Type.
 */
import assert from "node:assert/strict";
import { startTestServer } from "../support/test_server.ts";
import { assertStatus, call, createConfigMap, createNamespace } from "./foundation_helpers.ts";

const CMS = "/api/v1/namespaces/errs/configmaps";

Deno.test("bad requests answer 4xx Status objects, never 500", async (t) => {
  const s = await startTestServer();
  try {
    await createNamespace(s, "errs");
    await createConfigMap(s, "errs", "exists");
    const yaml = { "content-type": "application/yaml" };
    const cases: {
      name: string;
      method: string;
      path: string;
      body?: unknown;
      headers?: Record<string, string>;
      code: number;
      reason: string;
      message?: RegExp;
      field?: string;
    }[] = [
      {
        name: "malformed JSON",
        method: "POST",
        path: CMS,
        body: '{"metadata": {"name": "x"',
        code: 400,
        reason: "BadRequest",
      },
      {
        name: "empty body",
        method: "POST",
        path: CMS,
        body: "",
        code: 400,
        reason: "BadRequest",
      },
      {
        name: "malformed YAML",
        method: "POST",
        path: CMS,
        body: "metadata:\n  name: [x\n",
        headers: yaml,
        code: 400,
        reason: "BadRequest",
      },
      {
        name: "a JSON array instead of an object",
        method: "POST",
        path: CMS,
        body: "[1,2]",
        code: 400,
        reason: "BadRequest",
      },
      {
        name: "a wrong kind",
        method: "POST",
        path: CMS,
        body: { apiVersion: "v1", kind: "Secret", metadata: { name: "x" } },
        code: 400,
        reason: "BadRequest",
        message: /kind/,
      },
      {
        name: "a wrong apiVersion",
        method: "POST",
        path: CMS,
        body: { apiVersion: "apps/v1", kind: "ConfigMap", metadata: { name: "x" } },
        code: 400,
        reason: "BadRequest",
        message: /apps\/v1/,
      },
      {
        name: "a wrong kind in YAML",
        method: "POST",
        path: CMS,
        body: "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n",
        headers: yaml,
        code: 400,
        reason: "BadRequest",
      },
      {
        name: "a name that differs from the path",
        method: "PUT",
        path: `${CMS}/exists`,
        body: { metadata: { name: "other" } },
        code: 400,
        reason: "BadRequest",
        message: /does not match the name on the URL/,
      },
      {
        name: "a namespace that differs from the path",
        method: "POST",
        path: CMS,
        body: { metadata: { name: "x", namespace: "default" } },
        code: 400,
        reason: "BadRequest",
        message: /namespace/,
      },
      {
        name: "a pod without containers",
        method: "POST",
        path: "/api/v1/namespaces/errs/pods",
        body: { metadata: { name: "p" }, spec: {} },
        code: 422,
        reason: "Invalid",
        field: "spec.containers",
      },
      {
        name: "a pod without spec",
        method: "POST",
        path: "/api/v1/namespaces/errs/pods",
        body: { metadata: { name: "p" } },
        code: 422,
        reason: "Invalid",
        field: "spec",
      },
      {
        name: "a container without image",
        method: "POST",
        path: "/api/v1/namespaces/errs/pods",
        body: { metadata: { name: "p" }, spec: { containers: [{ name: "c" }] } },
        code: 422,
        reason: "Invalid",
        field: "spec.containers[0].image",
      },
      {
        name: "data that is not a string map",
        method: "POST",
        path: CMS,
        body: { metadata: { name: "x" }, data: { a: 1 } },
        code: 422,
        reason: "Invalid",
      },
      {
        name: "metadata that is not an object",
        method: "POST",
        path: CMS,
        body: { metadata: "x" },
        code: 422,
        reason: "Invalid",
      },
      {
        name: "labels that are invalid",
        method: "POST",
        path: CMS,
        body: { metadata: { name: "x", labels: { "bad key!": "v" } } },
        code: 422,
        reason: "Invalid",
        field: "metadata.labels",
      },
      {
        name: "an unknown resource",
        method: "GET",
        path: "/api/v1/namespaces/errs/widgets",
        code: 404,
        reason: "NotFound",
      },
      {
        name: "an unknown group",
        method: "GET",
        path: "/apis/example.com/v1/widgets",
        code: 404,
        reason: "NotFound",
      },
      {
        name: "an unknown version",
        method: "GET",
        path: "/api/v2/namespaces",
        code: 404,
        reason: "NotFound",
      },
      {
        name: "an unknown top-level path",
        method: "GET",
        path: "/nothing/here",
        code: 404,
        reason: "NotFound",
      },
      {
        name: "an unknown subresource",
        method: "GET",
        path: `${CMS}/exists/status`,
        code: 404,
        reason: "NotFound",
      },
      {
        name: "a missing object",
        method: "GET",
        path: `${CMS}/missing`,
        code: 404,
        reason: "NotFound",
        message: /^configmaps "missing" not found$/,
      },
      {
        name: "a cluster-scoped kind under a namespace",
        method: "GET",
        path: "/api/v1/namespaces/errs/nodes",
        code: 404,
        reason: "NotFound",
      },
      {
        name: "POST to a named object",
        method: "POST",
        path: `${CMS}/exists`,
        body: { metadata: { name: "exists" } },
        code: 405,
        reason: "MethodNotAllowed",
      },
      {
        name: "PUT to a collection",
        method: "PUT",
        path: CMS,
        body: { metadata: { name: "x" } },
        code: 405,
        reason: "MethodNotAllowed",
      },
      {
        name: "POST to the all-namespaces collection",
        method: "POST",
        path: "/api/v1/configmaps",
        body: { metadata: { name: "x" } },
        code: 405,
        reason: "MethodNotAllowed",
      },
      {
        name: "an unacceptable Accept",
        method: "GET",
        path: CMS,
        headers: { accept: "text/html" },
        code: 406,
        reason: "NotAcceptable",
      },
      {
        name: "an unsupported Content-Type",
        method: "POST",
        path: CMS,
        body: "name=x",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        code: 415,
        reason: "UnsupportedMediaType",
      },
      {
        name: "a bad limit",
        method: "GET",
        path: `${CMS}?limit=lots`,
        code: 400,
        reason: "BadRequest",
      },
      {
        name: "a bad dryRun",
        method: "POST",
        path: `${CMS}?dryRun=Yes`,
        body: { metadata: { name: "x" } },
        code: 400,
        reason: "BadRequest",
      },
      {
        name: "a bad DeleteOptions body",
        method: "DELETE",
        path: `${CMS}/exists`,
        body: "{nope",
        code: 400,
        reason: "BadRequest",
      },
      {
        name: "a stale resourceVersion that is not a number",
        method: "PUT",
        path: `${CMS}/exists`,
        body: { metadata: { name: "exists", resourceVersion: "abc" } },
        code: 400,
        reason: "BadRequest",
      },
      ...deepBodies(),
    ];
    for (const c of cases) {
      await t.step(`${c.name}: ${c.code}`, async () => {
        const r = await call(s, c.method, c.path, c.body, c.headers);
        const st = assertStatus(r, c.code, c.reason);
        assert.equal(r.headers.get("content-type"), "application/json");
        if (c.message) assert.match(st.message!, c.message);
        if (c.field) {
          assert.ok(st.details?.causes?.length, r.text);
          assert.ok(
            st.details!.causes!.some((x) => x.field === c.field),
            `no cause for ${c.field}: ${r.text}`,
          );
        }
      });
    }
    await t.step("an invalid object lists every problem as a cause", async () => {
      const r = await call(s, "POST", "/api/v1/namespaces/errs/pods", {
        metadata: { name: "Bad_Name", labels: { "-x": "y" } },
        spec: { containers: [{ name: "UPPER" }] },
      });
      const st = assertStatus(r, 422, "Invalid");
      const fields = st.details!.causes!.map((c) => c.field).sort();
      assert.deepEqual(fields, [
        "metadata.labels",
        "metadata.name",
        "spec.containers[0].image",
        "spec.containers[0].name",
      ]);
      assert.equal(st.details?.kind, "Pod");
      assert.equal(st.details?.name, "Bad_Name");
      assert.match(st.message!, /^Pod "Bad_Name" is invalid: \[/);
    });
  } finally {
    await s.close();
  }
});

/**
 * Bodies nested 5,000 levels deep (kube-apiserver takes 10,000; the code here recursing once per
 * level ran out of stack from about 3,000 and answered 500), for every way a body comes in.
 */
function deepBodies() {
  const nested = '{"a":'.repeat(5000) + "1" + "}".repeat(5000);
  const message = /^the request body exceeds the maximum nesting depth of 1000$/;
  // The YAML parser may give up first, with its own 400.
  const yamlMessage =
    /^(the request body exceeds the maximum nesting depth of 1000|error converting YAML to JSON: .*)$/s;
  const at = (name: string, method: string, path: string, type: string, body: string) => ({
    name: `a body nested 5000 deep (${name})`,
    method,
    path,
    body,
    headers: { "content-type": type },
    code: 400,
    reason: "BadRequest",
    message: type.includes("yaml") ? yamlMessage : message,
  });
  return [
    at("create, JSON", "POST", CMS, "application/json", `{"metadata":{"name":"d"},"x":${nested}}`),
    at("create, YAML", "POST", CMS, "application/yaml", `{"metadata":{"name":"d"},"x":${nested}}`),
    at(
      "update",
      "PUT",
      `${CMS}/exists`,
      "application/json",
      `{"metadata":{"name":"exists"},"x":${nested}}`,
    ),
    at("merge patch", "PATCH", `${CMS}/exists`, "application/merge-patch+json", `{"x":${nested}}`),
    at(
      "JSON patch",
      "PATCH",
      `${CMS}/exists`,
      "application/json-patch+json",
      `[{"op":"add","path":"/x","value":${nested}}]`,
    ),
    at(
      "strategic merge patch",
      "PATCH",
      `${CMS}/exists`,
      "application/strategic-merge-patch+json",
      `{"x":${nested}}`,
    ),
  ];
}
