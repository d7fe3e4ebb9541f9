/**
 * End to end: the RBAC kinds are typed in the schema model (OpenAPI, field validation, strategic
 * merge patch, typed server-side apply), and typed quantity fields are stored canonical. The
 * kubectl steps are skipped where kubectl is absent.
 */
import assert from "node:assert/strict";
import {
  kubectlFor,
  kubectlOk as ok,
  runKubectl as kubectl,
  skipWithoutKubectl,
} from "../support/kubectl.ts";
import { startTestServer } from "../support/test_server.ts";

const ROLES = "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles";
const BINDINGS = "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings";

function post(body: unknown): RequestInit {
  return {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  };
}

const role = (name: string, rule: Record<string, unknown>) => ({
  apiVersion: "rbac.authorization.k8s.io/v1",
  kind: "Role",
  metadata: { name, namespace: "default" },
  rules: [rule],
});

Deno.test("RBAC bodies are validated against their schema", async (t) => {
  const s = await startTestServer();
  try {
    await t.step("unknown fields warn under fieldValidation=Warn and are dropped", async () => {
      const res = await s.fetch(
        `${ROLES}?fieldValidation=Warn`,
        post(role("warn", { verbs: ["get"], resources: ["pods"], apiGroups: [""], color: "x" })),
      );
      assert.equal(res.status, 201);
      assert.match(res.headers.get("warning") ?? "", /unknown field \\"rules\[0\]\.color\\"/);
      const body = await res.json();
      assert.deepEqual(body.rules, [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }]);
    });
    await t.step("unknown fields are rejected under fieldValidation=Strict", async () => {
      const res = await s.fetch(
        `${ROLES}?fieldValidation=Strict`,
        post(role("strict", { verbs: ["get"], resources: ["pods"], apiGroups: [""], color: "x" })),
      );
      assert.equal(res.status, 400);
      const status = await res.json();
      assert.match(status.message, /strict decoding error: unknown field "rules\[0\]\.color"/);
    });
    await t.step("a rule without verbs is invalid", async () => {
      const res = await s.fetch(ROLES, post(role("noverbs", { resources: ["pods"] })));
      assert.equal(res.status, 422);
      const status = await res.json();
      assert.ok(
        status.details.causes.some((c: { field: string }) => c.field === "rules[0].verbs"),
        JSON.stringify(status),
      );
    });
    await t.step("a binding's roleRef needs apiGroup, kind and name", async () => {
      const res = await s.fetch(
        BINDINGS,
        post({
          apiVersion: "rbac.authorization.k8s.io/v1",
          kind: "RoleBinding",
          metadata: { name: "b", namespace: "default" },
          subjects: [{ kind: "User", name: "alice" }],
          roleRef: { kind: "Role", name: "warn" },
        }),
      );
      assert.equal(res.status, 422);
      const status = await res.json();
      assert.ok(
        status.details.causes.some((c: { field: string }) => c.field === "roleRef.apiGroup"),
        JSON.stringify(status),
      );
    });
    await t.step("the OpenAPI v3 document types the RBAC kinds", async () => {
      const res = await s.fetch("/openapi/v3/apis/rbac.authorization.k8s.io/v1");
      assert.equal(res.status, 200);
      const doc = await res.json();
      const schemas = doc.components.schemas;
      const ref = schemas["io.k8s.api.rbac.v1.RoleRef"];
      assert.deepEqual(ref.required, ["apiGroup", "kind", "name"]);
      assert.equal(ref["x-kubernetes-map-type"], "atomic");
      assert.deepEqual(schemas["io.k8s.api.rbac.v1.PolicyRule"].required, ["verbs"]);
      const cr = schemas["io.k8s.api.rbac.v1.ClusterRole"];
      assert.ok(cr.properties.rules && cr.properties.aggregationRule);
      assert.notEqual(cr["x-kubernetes-preserve-unknown-fields"], true);
    });
  } finally {
    await s.close();
  }
});

Deno.test("typed quantity fields are stored in canonical form", async () => {
  const s = await startTestServer();
  try {
    const res = await s.fetch(
      "/api/v1/namespaces/default/pods?dryRun=All",
      post({
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "q", namespace: "default" },
        spec: {
          containers: [{
            name: "c",
            image: "busybox",
            resources: {
              limits: { cpu: "1000m", memory: "1024Ki" },
              requests: { cpu: 0.5, memory: "1.5Gi" },
            },
          }],
        },
      }),
    );
    const body = await res.json();
    assert.equal(res.status, 201, JSON.stringify(body));
    assert.deepEqual(body.spec.containers[0].resources, {
      limits: { cpu: "1", memory: "1Mi" },
      requests: { cpu: "500m", memory: "1536Mi" },
    });
  } finally {
    await s.close();
  }
});

Deno.test({
  name: "kubectl explain, strategic patch and server-side apply of RBAC kinds",
  ignore: skipWithoutKubectl("the kubectl RBAC schema tests"),
  async fn(t) {
    const s = await startTestServer();
    const k = kubectlFor(s);
    try {
      await t.step("kubectl explain clusterrole.rules", async () => {
        const out = ok(await kubectl(k, ["explain", "clusterrole.rules"]));
        assert.match(out, /GROUP:\s+rbac\.authorization\.k8s\.io/);
        assert.match(out, /FIELD: rules <\[\]PolicyRule>/);
        assert.match(out, /verbs\s+<\[\]string> -required-/);
        assert.match(out, /nonResourceURLs\s+<\[\]string>/);
      });
      await t.step("kubectl explain rolebinding.roleRef", async () => {
        const out = ok(await kubectl(k, ["explain", "rolebinding.roleRef"]));
        assert.match(out, /apiGroup\s+<string> -required-/);
        assert.match(out, /name\s+<string> -required-/);
      });
      await t.step("kubectl patch role --type=strategic replaces the rules", async () => {
        ok(
          await kubectl(k, [
            "create",
            "role",
            "reader",
            "--verb=get",
            "--resource=pods",
            "-n",
            "default",
          ]),
        );
        ok(
          await kubectl(k, [
            "patch",
            "role",
            "reader",
            "-n",
            "default",
            "--type=strategic",
            "-p",
            JSON.stringify({
              rules: [{ apiGroups: [""], resources: ["secrets"], verbs: ["list"] }],
            }),
          ]),
        );
        const got = JSON.parse(
          ok(await kubectl(k, ["get", "role", "reader", "-n", "default", "-o", "json"])),
        );
        assert.deepEqual(got.rules, [{ apiGroups: [""], resources: ["secrets"], verbs: ["list"] }]);
      });
      await t.step("kubectl apply --server-side records typed managedFields", async () => {
        const binding = {
          apiVersion: "rbac.authorization.k8s.io/v1",
          kind: "RoleBinding",
          metadata: { name: "applied", namespace: "default" },
          subjects: [{ kind: "User", name: "alice", apiGroup: "rbac.authorization.k8s.io" }],
          roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "applied" },
        };
        const rule = { apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list"] };
        for (const obj of [role("applied", rule), binding]) {
          ok(await kubectl(k, ["apply", "--server-side", "-f", "-"], JSON.stringify(obj)));
        }
        const fields = async (kind: string) => {
          const obj = JSON.parse(
            ok(
              await kubectl(k, [
                "get",
                kind,
                "applied",
                "-n",
                "default",
                "-o",
                "json",
                "--show-managed-fields",
              ]),
            ),
          );
          return obj.metadata.managedFields.map((e: Record<string, unknown>) => [
            e.manager,
            e.operation,
            e.fieldsV1,
          ]);
        };
        // rules and subjects are atomic lists and roleRef an atomic struct: owned whole.
        assert.deepEqual(await fields("role"), [["kubectl", "Apply", { "f:rules": {} }]]);
        assert.deepEqual(await fields("rolebinding"), [
          ["kubectl", "Apply", { "f:roleRef": {}, "f:subjects": {} }],
        ]);
      });
    } finally {
      await s.close();
    }
  },
});
