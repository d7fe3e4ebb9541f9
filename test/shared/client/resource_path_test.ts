import assert from "node:assert/strict";
import { resourcePath } from "../../../shared/client/resource_path.ts";

const cm = { group: "", version: "v1", resource: "configmaps", namespace: "ns1" };

Deno.test("resourcePath() builds core, group, namespaced and subresource paths", async (t) => {
  const cases: [Parameters<typeof resourcePath>[0], string][] = [
    [{ version: "v1", resource: "namespaces" }, "/api/v1/namespaces"],
    [{ ...cm, name: "a" }, "/api/v1/namespaces/ns1/configmaps/a"],
    [
      {
        group: "coordination.k8s.io",
        version: "v1",
        resource: "leases",
        namespace: "x",
        name: "n",
      },
      "/apis/coordination.k8s.io/v1/namespaces/x/leases/n",
    ],
    [
      { version: "v1", resource: "nodes", name: "n1", subresource: "status" },
      "/api/v1/nodes/n1/status",
    ],
  ];
  for (const [ref, want] of cases) await t.step(want, () => assert.equal(resourcePath(ref), want));
});

Deno.test("resourcePath() refuses a subresource without a name", () => {
  assert.throws(() => resourcePath({ version: "v1", resource: "pods", subresource: "log" }));
});
