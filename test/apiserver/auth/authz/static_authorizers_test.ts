import assert from "node:assert/strict";
import {
  AlwaysAllowPathsAuthorizer,
  PrivilegedGroupsAuthorizer,
} from "../../../../apiserver/auth/authz/static_authorizers.ts";

Deno.test("AlwaysAllowPathsAuthorizer() allows listed paths and prefixes of non-resource requests", async () => {
  const a = new AlwaysAllowPathsAuthorizer(["/healthz", "/metrics/*"]);
  const ask = (path: string, isResourceRequest = false) =>
    a.authorize({ path, isResourceRequest }).then((d) => d.decision);
  assert.equal(await ask("/healthz"), "allow");
  assert.equal(await ask("/healthz/etcd"), "noOpinion");
  assert.equal(await ask("/metrics/slis"), "allow");
  assert.equal(await ask("/readyz"), "noOpinion");
  assert.equal(await ask("/healthz", true), "noOpinion");
});

Deno.test("PrivilegedGroupsAuthorizer() allows the groups it is given", async () => {
  const a = new PrivilegedGroupsAuthorizer(["admins"]);
  const ask = (groups: string[]) =>
    a.authorize({ user: { username: "u", groups } }).then((d) => d.decision);
  assert.equal(await ask(["admins"]), "allow");
  assert.equal(await ask(["system:masters"]), "noOpinion");
});
