import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import { eventually } from "../support/eventually.ts";
import { jsonCall, jsonOk as ok, type JsonReply } from "../support/json_call.ts";

const RBAC = "/apis/rbac.authorization.k8s.io/v1";
const G = "rbac.authorization.k8s.io";

type Who = { user: string; groups?: string[] };

/** A request as another identity (the admin impersonates it). */
async function as(
  t: TestServer,
  who: Who | undefined,
  method: string,
  path: string,
  body?: unknown,
): Promise<JsonReply> {
  const headers = new Headers();
  if (who) {
    headers.set("impersonate-user", who.user);
    for (const g of who.groups ?? []) headers.append("impersonate-group", g);
  }
  return await jsonCall(t, method, path, body, headers);
}

const role = (name: string, rules: unknown[]) => ({
  apiVersion: `${G}/v1`,
  kind: "Role",
  metadata: { name },
  rules,
});

const roleBinding = (name: string, kind: string, roleName: string, subjects: unknown[]) => ({
  apiVersion: `${G}/v1`,
  kind: "RoleBinding",
  metadata: { name },
  roleRef: { apiGroup: G, kind, name: roleName },
  subjects,
});

const JANE: Who = { user: "jane" };
const JANE_TOKEN = "jane-token-0123456789";
const BOB: Who = { user: "bob" };
const ROBOT: Who = { user: "system:serviceaccount:team:robot" };

Deno.test("RBAC end to end: admin, a namespace editor, a service account, escalation and bind", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "authz-e2e-" });
  const tokenFile = `${dir}/tokens.csv`;
  await Deno.writeTextFile(tokenFile, `${JANE_TOKEN},jane,uid-jane\n`, { mode: 0o600 });
  const srv = await startTestServer([`--token-auth-file=${tokenFile}`]);
  try {
    await ok(srv, "POST", "/api/v1/namespaces", { metadata: { name: "team" } });

    await t.step("default cluster roles exist and edit is aggregated", async () => {
      const list = await ok(srv, "GET", `${RBAC}/clusterroles`) as {
        items: { metadata: { name: string; labels: Record<string, string> } }[];
      };
      const names = list.items.map((i) => i.metadata.name);
      for (
        const n of [
          "cluster-admin",
          "admin",
          "edit",
          "view",
          "system:monitoring",
          "system:discovery",
        ]
      ) {
        assert.ok(names.includes(n), n);
      }
      const view = list.items.find((i) => i.metadata.name === "view")!;
      assert.equal(view.metadata.labels["kubernetes.io/bootstrapping"], "rbac-defaults");
      assert.equal(view.metadata.labels["rbac.authorization.k8s.io/aggregate-to-edit"], "true");
      await eventually("edit aggregation", async () => {
        const edit = await ok(srv, "GET", `${RBAC}/clusterroles/edit`) as {
          rules?: { resources?: string[] }[];
        };
        return (edit.rules ?? []).some((r) => r.resources?.includes("secrets")) &&
          (edit.rules ?? []).some((r) => r.resources?.includes("pods/log"));
      });
    });

    await t.step("403 carries Kubernetes' message", async () => {
      const r = await as(srv, JANE, "GET", "/api/v1/namespaces/team/pods");
      assert.equal(r.status, 403);
      assert.equal(
        r.json.message,
        `pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the namespace "team"`,
      );
      assert.equal(r.json.reason, "Forbidden");
    });

    await t.step("a RoleBinding to edit makes jane an editor of team only", async () => {
      await ok(
        srv,
        "POST",
        `${RBAC}/namespaces/team/rolebindings`,
        roleBinding("jane-edit", "ClusterRole", "edit", [{
          kind: "User",
          apiGroup: G,
          name: "jane",
        }]),
      );
      await eventually(
        "jane can list pods",
        async () => (await as(srv, JANE, "GET", "/api/v1/namespaces/team/pods")).status === 200,
      );
      const cm = await as(srv, JANE, "POST", "/api/v1/namespaces/team/configmaps", {
        metadata: { name: "c1" },
        data: { a: "b" },
      });
      assert.equal(cm.status, 201);
      assert.equal((await as(srv, JANE, "GET", "/api/v1/namespaces/team/secrets")).status, 200);
      assert.equal((await as(srv, JANE, "GET", "/api/v1/namespaces/default/pods")).status, 403);
      assert.equal((await as(srv, JANE, "GET", "/api/v1/pods")).status, 403);
      const r = await as(srv, JANE, "POST", `${RBAC}/namespaces/team/roles`, role("x", []));
      assert.equal(r.status, 403, "edit holds no roles");
    });

    await t.step("a service account with a custom Role", async () => {
      await ok(
        srv,
        "POST",
        `${RBAC}/namespaces/team/roles`,
        role("cm-reader", [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list"] }]),
      );
      await ok(
        srv,
        "POST",
        `${RBAC}/namespaces/team/rolebindings`,
        roleBinding("robot", "Role", "cm-reader", [{
          kind: "ServiceAccount",
          name: "robot",
          namespace: "team",
        }]),
      );
      await eventually(
        "robot can list configmaps",
        async () =>
          (await as(srv, ROBOT, "GET", "/api/v1/namespaces/team/configmaps")).status === 200,
      );
      assert.equal(
        (await as(srv, ROBOT, "GET", "/api/v1/namespaces/team/configmaps/c1")).status,
        200,
      );
      assert.equal(
        (await as(srv, ROBOT, "DELETE", "/api/v1/namespaces/team/configmaps/c1")).status,
        403,
      );
      assert.equal((await as(srv, ROBOT, "GET", "/api/v1/namespaces/team/secrets")).status, 403);
    });

    await t.step("escalation: roles need the permissions they grant, or escalate", async () => {
      await ok(
        srv,
        "POST",
        `${RBAC}/namespaces/team/roles`,
        role("role-maker", [
          {
            apiGroups: [G],
            resources: ["roles", "rolebindings"],
            verbs: ["create", "update", "get"],
          },
          { apiGroups: [""], resources: ["pods"], verbs: ["get", "list"] },
        ]),
      );
      await ok(
        srv,
        "POST",
        `${RBAC}/namespaces/team/rolebindings`,
        roleBinding("bob", "Role", "role-maker", [{ kind: "User", apiGroup: G, name: "bob" }]),
      );
      await eventually(
        "bob can create roles",
        async () =>
          (await as(
            srv,
            BOB,
            "POST",
            `${RBAC}/namespaces/team/roles?dryRun=All`,
            role("probe", []),
          )).status === 201,
      );
      const held = await as(
        srv,
        BOB,
        "POST",
        `${RBAC}/namespaces/team/roles`,
        role("pod-get", [{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }]),
      );
      assert.equal(held.status, 201, JSON.stringify(held.json));
      const esc = await as(
        srv,
        BOB,
        "POST",
        `${RBAC}/namespaces/team/roles`,
        role("secrets", [{ apiGroups: [""], resources: ["secrets"], verbs: ["get"] }]),
      );
      assert.equal(esc.status, 403);
      assert.equal(
        esc.json.message,
        `roles.rbac.authorization.k8s.io "secrets" is forbidden: user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}`,
      );
      await ok(
        srv,
        "POST",
        `${RBAC}/namespaces/team/roles`,
        role("escalator", [{ apiGroups: [G], resources: ["roles"], verbs: ["escalate"] }]),
      );
      await ok(
        srv,
        "POST",
        `${RBAC}/namespaces/team/rolebindings`,
        roleBinding("bob-esc", "Role", "escalator", [{ kind: "User", apiGroup: G, name: "bob" }]),
      );
      await eventually(
        "bob may escalate",
        async () =>
          (await as(
            srv,
            BOB,
            "POST",
            `${RBAC}/namespaces/team/roles`,
            role("secrets", [{ apiGroups: [""], resources: ["secrets"], verbs: ["get"] }]),
          )).status === 201,
      );
    });

    await t.step("bind: bindings need the role's permissions, or bind on it", async () => {
      const mine = await as(
        srv,
        BOB,
        "POST",
        `${RBAC}/namespaces/team/rolebindings`,
        roleBinding("pods-to-amy", "Role", "pod-get", [{ kind: "User", apiGroup: G, name: "amy" }]),
      );
      assert.equal(mine.status, 201, JSON.stringify(mine.json));
      const denied = await as(
        srv,
        BOB,
        "POST",
        `${RBAC}/namespaces/team/rolebindings`,
        roleBinding("admin-to-amy", "ClusterRole", "admin", [{
          kind: "User",
          apiGroup: G,
          name: "amy",
        }]),
      );
      assert.equal(denied.status, 403);
      assert.match(
        String(denied.json.message),
        /is attempting to grant RBAC permissions not currently held/,
      );
      const missing = await as(
        srv,
        BOB,
        "POST",
        `${RBAC}/namespaces/team/rolebindings`,
        roleBinding("nope", "Role", "does-not-exist", [{ kind: "User", apiGroup: G, name: "amy" }]),
      );
      assert.equal(missing.status, 404);
      await ok(
        srv,
        "POST",
        `${RBAC}/namespaces/team/roles`,
        role("binder", [{
          apiGroups: [G],
          resources: ["clusterroles"],
          verbs: ["bind"],
          resourceNames: ["admin"],
        }]),
      );
      await ok(
        srv,
        "POST",
        `${RBAC}/namespaces/team/rolebindings`,
        roleBinding("bob-bind", "Role", "binder", [{ kind: "User", apiGroup: G, name: "bob" }]),
      );
      await eventually(
        "bob may bind admin",
        async () =>
          (await as(
            srv,
            BOB,
            "POST",
            `${RBAC}/namespaces/team/rolebindings`,
            roleBinding("admin-to-amy", "ClusterRole", "admin", [{
              kind: "User",
              apiGroup: G,
              name: "amy",
            }]),
          )).status === 201,
      );
      const view = await as(
        srv,
        BOB,
        "POST",
        `${RBAC}/namespaces/team/rolebindings`,
        roleBinding("view-to-amy", "ClusterRole", "cluster-admin", [{
          kind: "User",
          apiGroup: G,
          name: "amy",
        }]),
      );
      assert.equal(view.status, 403, "bind is limited to the named role");
    });

    await t.step("roleRef is immutable", async () => {
      const b = await ok(srv, "GET", `${RBAC}/namespaces/team/rolebindings/jane-edit`) as {
        roleRef: { name: string };
      };
      b.roleRef.name = "view";
      const r = await as(
        srv,
        undefined,
        "PUT",
        `${RBAC}/namespaces/team/rolebindings/jane-edit`,
        b,
      );
      assert.equal(r.status, 422);
      assert.match(String(r.json.message), /roleRef: Invalid value: .*cannot change roleRef/);
    });

    await t.step("review APIs answer from the same chain", async () => {
      const ssar = await as(
        srv,
        JANE,
        "POST",
        "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
        {
          apiVersion: "authorization.k8s.io/v1",
          kind: "SelfSubjectAccessReview",
          spec: { resourceAttributes: { namespace: "team", verb: "list", resource: "pods" } },
        },
      );
      assert.equal(ssar.status, 201);
      assert.equal((ssar.json.status as { allowed: boolean }).allowed, true);
      const sar = await ok(srv, "POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", {
        apiVersion: "authorization.k8s.io/v1",
        kind: "SubjectAccessReview",
        spec: {
          user: "jane",
          resourceAttributes: { namespace: "default", verb: "list", resource: "pods" },
        },
      });
      assert.equal((sar.status as { allowed: boolean }).allowed, false);
      const lsar = await ok(
        srv,
        "POST",
        "/apis/authorization.k8s.io/v1/namespaces/team/localsubjectaccessreviews",
        {
          apiVersion: "authorization.k8s.io/v1",
          kind: "LocalSubjectAccessReview",
          spec: {
            user: "system:serviceaccount:team:robot",
            resourceAttributes: { namespace: "team", verb: "get", resource: "configmaps" },
          },
        },
      );
      assert.equal((lsar.status as { allowed: boolean }).allowed, true);
      const bad = await as(
        srv,
        undefined,
        "POST",
        "/apis/authorization.k8s.io/v1/subjectaccessreviews",
        {
          apiVersion: "authorization.k8s.io/v1",
          kind: "SubjectAccessReview",
          spec: { resourceAttributes: { verb: "get", resource: "pods" } },
        },
      );
      assert.equal(bad.status, 422);
      const ssrr = await as(
        srv,
        ROBOT,
        "POST",
        "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
        {
          apiVersion: "authorization.k8s.io/v1",
          kind: "SelfSubjectRulesReview",
          spec: { namespace: "team" },
        },
      );
      assert.equal(ssrr.status, 201);
      const rules =
        (ssrr.json.status as { resourceRules: { resources: string[]; verbs: string[] }[] })
          .resourceRules;
      assert.ok(rules.some((r) => r.resources.includes("configmaps") && r.verbs.includes("list")));
      assert.ok(rules.some((r) => r.resources.includes("selfsubjectaccessreviews")));
    });

    await t.step("impersonation goes through the chain", async () => {
      const asJane = (extra: Record<string, string>) =>
        srv.fetch("/api/v1/namespaces/default/pods", {
          headers: { authorization: `Bearer ${JANE_TOKEN}`, ...extra },
        });
      const plain = await asJane({});
      assert.equal(plain.status, 403);
      assert.match((await plain.json()).message, /User "jane" cannot list/);
      const denied = await asJane({ "impersonate-user": "bob" });
      assert.equal(denied.status, 403);
      assert.equal(
        (await denied.json()).message,
        `users "bob" is forbidden: User "jane" cannot impersonate resource "users" in API group "" at the cluster scope`,
      );
      await ok(srv, "POST", `${RBAC}/clusterroles`, {
        metadata: { name: "impersonate-bob" },
        rules: [{
          apiGroups: [""],
          resources: ["users"],
          verbs: ["impersonate"],
          resourceNames: ["bob"],
        }],
      });
      await ok(srv, "POST", `${RBAC}/clusterrolebindings`, {
        metadata: { name: "jane-impersonates-bob" },
        roleRef: { apiGroup: G, kind: "ClusterRole", name: "impersonate-bob" },
        subjects: [{ kind: "User", apiGroup: G, name: "jane" }],
      });
      await eventually("jane may impersonate bob", async () => {
        const r = await asJane({ "impersonate-user": "bob" });
        const body = await r.json();
        return r.status === 403 && String(body.message).includes(
          `User "bob" cannot list resource "pods" in API group "" in the namespace "default"`,
        );
      });
    });
  } finally {
    await srv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
