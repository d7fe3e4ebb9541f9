import assert from "node:assert/strict";
import { authorizationOptionsFromFlags } from "../../../../apiserver/auth/authz/authorization_options.ts";

Deno.test("authorizationOptionsFromFlags() validates modes as Kubernetes does", async (t) => {
  const cases: [string, Record<string, string>, string[], string[]][] = [
    ["default", {}, ["Node", "RBAC"], []],
    ["order kept", { "authorization-mode": "RBAC,AlwaysAllow" }, ["RBAC", "AlwaysAllow"], []],
    ["unknown", { "authorization-mode": "Foo" }, [], [
      'authorization-mode "Foo" is not a valid mode',
    ]],
    ["twice", { "authorization-mode": "RBAC,RBAC" }, ["RBAC"], [
      'authorization-mode "RBAC" has mode specified more than once',
    ]],
    ["ABAC needs a file", { "authorization-mode": "ABAC" }, ["ABAC"], [
      "authorization-mode ABAC's authorization policy file not passed",
    ]],
    ["file needs ABAC", { "authorization-policy-file": "/x" }, ["Node", "RBAC"], [
      "cannot specify --authorization-policy-file without mode ABAC",
    ]],
  ];
  for (const [name, flags, modes, errs] of cases) {
    await t.step(name, () => {
      const errors: string[] = [];
      const o = authorizationOptionsFromFlags(flags, errors);
      assert.deepEqual(o.modes, modes);
      assert.deepEqual(errors, errs);
    });
  }
});
