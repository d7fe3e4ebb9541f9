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
    ["none", { "authorization-mode": "" }, [], ["at least one authorization-mode must be passed"]],
    ["Webhook needs a file", { "authorization-mode": "Webhook" }, ["Webhook"], [
      "authorization-mode Webhook's authorization config file not passed",
    ]],
    [
      "webhook file needs Webhook",
      { "authorization-webhook-config-file": "/x" },
      ["Node", "RBAC"],
      [
        "cannot specify --authorization-webhook-config-file without mode Webhook",
      ],
    ],
    [
      "webhook version and TTLs",
      {
        "authorization-mode": "Webhook",
        "authorization-webhook-config-file": "/x",
        "authorization-webhook-version": "v2",
        "authorization-webhook-cache-authorized-ttl": "soon",
        "authorization-webhook-cache-unauthorized-ttl": "-1s",
      },
      ["Webhook"],
      [
        '--authorization-webhook-version: must be v1 or v1beta1, got "v2"',
        '--authorization-webhook-cache-authorized-ttl: must be a duration such as 5m, got "soon"',
        '--authorization-webhook-cache-unauthorized-ttl: must be a duration such as 30s, got "-1s"',
      ],
    ],
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
