import assert from "node:assert/strict";
import { hasImpersonation, impersonate } from "../../../apiserver/auth/impersonation.ts";
import type { Authorizer, AuthzAttributes } from "../../../apiserver/auth/authz/authorizer.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";

const admin = { username: "admin", groups: ["system:masters", "system:authenticated"] };
const bob = { username: "bob", groups: ["system:authenticated"] };
const req = (headers: Record<string, string>) =>
  new Request("https://x/api/v1/pods", { headers: new Headers(headers) });

/** An authorizer that allows what a test lists and records every question. */
function allowList(allowed: (a: AuthzAttributes) => boolean) {
  const asked: string[] = [];
  const authorizer: Authorizer = {
    name: "test",
    authorize(a) {
      asked.push(
        `${a.verb} ${a.apiGroup}/${a.resource}${a.subresource ? "/" + a.subresource : ""} ${
          a.namespace ? a.namespace + "/" : ""
        }${a.name}`,
      );
      return Promise.resolve({ decision: allowed(a) ? "allow" : "noOpinion", reason: "" });
    },
  };
  return { authorizer, asked };
}

/** Allows system:masters everything (what the bootstrap policy did before RBAC). */
const mastersOnly = () => allowList((a) => a.user.groups.includes("system:masters")).authorizer;

Deno.test("impersonate() returns the impersonated identity after checking each value", async (t) => {
  await t.step("no headers: the caller itself", async () => {
    const { authorizer, asked } = allowList(() => true);
    assert.equal(await impersonate(req({}), bob, authorizer), bob);
    assert.deepEqual(asked, []);
  });
  await t.step("user, groups, extra and uid each checked", async () => {
    const { authorizer, asked } = allowList(() => true);
    const u = await impersonate(
      req({
        "Impersonate-User": "jane",
        "Impersonate-Group": "dev, qa",
        "Impersonate-Extra-Example.com%2Fscopes": "read",
        "Impersonate-Uid": "1234",
      }),
      bob,
      authorizer,
    );
    assert.deepEqual(u, {
      username: "jane",
      uid: "1234",
      groups: ["dev", "qa", "system:authenticated"],
      extra: { "example.com/scopes": ["read"] },
    });
    assert.deepEqual(asked, [
      "impersonate /users jane",
      "impersonate /groups dev",
      "impersonate /groups qa",
      "impersonate authentication.k8s.io/userextras/example.com/scopes read",
      "impersonate authentication.k8s.io/uids 1234",
    ]);
  });
  await t.step("a service account user checks serviceaccounts and gets its groups", async () => {
    const { authorizer, asked } = allowList(() => true);
    const u = await impersonate(
      req({ "Impersonate-User": "system:serviceaccount:ns1:robot" }),
      bob,
      authorizer,
    );
    assert.deepEqual(u.groups, [
      "system:serviceaccounts",
      "system:serviceaccounts:ns1",
      "system:authenticated",
    ]);
    assert.deepEqual(asked, ["impersonate /serviceaccounts ns1/robot"]);
  });
  await t.step("system:anonymous gets system:unauthenticated", async () => {
    const { authorizer } = allowList(() => true);
    const u = await impersonate(req({ "Impersonate-User": "system:anonymous" }), bob, authorizer);
    assert.deepEqual(u.groups, ["system:unauthenticated"]);
  });
  await t.step("system:masters may impersonate through the authorizer", async () => {
    const u = await impersonate(
      req({ "Impersonate-User": "jane", "Impersonate-Group": "dev" }),
      admin,
      mastersOnly(),
    );
    assert.deepEqual(u, { username: "jane", groups: ["dev", "system:authenticated"] });
  });
});

Deno.test("impersonate() rejects what the caller may not do", async (t) => {
  await t.step("a denied group is 403 naming the resource", async () => {
    const { authorizer } = allowList((a) => a.resource === "users");
    await assert.rejects(
      impersonate(
        req({ "Impersonate-User": "jane", "Impersonate-Group": "system:masters" }),
        bob,
        authorizer,
      ),
      (err: StatusError) => {
        assert.equal(err.code, 403);
        assert.match(
          err.message,
          /groups "system:masters" is forbidden: User "bob" cannot impersonate resource "groups"/,
        );
        return true;
      },
    );
  });
  await t.step("a user without system:masters is 403", async () => {
    await assert.rejects(
      impersonate(req({ "Impersonate-User": "jane" }), bob, mastersOnly()),
      (err: StatusError) => err.code === 403,
    );
  });
  await t.step("groups without a user is 400", async () => {
    const { authorizer } = allowList(() => true);
    await assert.rejects(
      impersonate(req({ "Impersonate-Group": "dev" }), admin, authorizer),
      (err: StatusError) => err.code === 400 && /without impersonating a user/.test(err.message),
    );
  });
});

Deno.test("hasImpersonation() finds impersonation headers by received names or in the headers", async (t) => {
  const cases: [string, Record<string, string>, boolean][] = [
    ["none", { "User-Agent": "kubectl/v1.32", Accept: "*/*" }, false],
    ["user", { "Impersonate-User": "jane" }, true],
    ["extra only", { "impersonate-extra-scopes": "view" }, true],
    ["a name that only starts alike", { "Impersonat": "x" }, false],
  ];
  for (const [name, headers, want] of cases) {
    await t.step(name, () => {
      assert.equal(hasImpersonation(new Headers(headers), Object.keys(headers)), want);
      assert.equal(hasImpersonation(new Headers(headers)), want);
    });
  }
});
