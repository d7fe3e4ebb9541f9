import { fakeAuthorizer, table } from "./helpers.ts";
import { AuthorizerValue } from "../../../../apiserver/cel/mod.ts";

Deno.test("registerAuthorizerLibrary() checks through the supplied authorizer", async (t) => {
  const authorizer = new AuthorizerValue(fakeAuthorizer, { name: "alice", groups: [] });
  const vars = { authorizer };
  const broken = { authorizer: new AuthorizerValue(fakeAuthorizer, { name: "boom", groups: [] }) };
  await table(t, [
    {
      expr:
        "authorizer.group('apps').resource('deployments').namespace('ns').name('n').check('get').allowed()",
      vars,
      want: true,
    },
    {
      expr: "authorizer.group('apps').resource('deployments').check('delete').allowed()",
      vars,
      want: false,
    },
    {
      expr: "authorizer.group('apps').resource('deployments').check('delete').reason()",
      vars,
      want: "no rule",
    },
    {
      expr:
        "authorizer.group('apps').resource('deployments').subresource('scale').fieldSelector('a=b').labelSelector('c=d').check('get').allowed()",
      vars,
      want: true,
    },
    { expr: "authorizer.path('/healthz').check('GET').allowed()", vars, want: true },
    { expr: "authorizer.path('/metrics').check('get').allowed()", vars, want: false },
    {
      expr:
        "authorizer.serviceAccount('ns', 'sa').group('apps').resource('deployments').check('get').allowed()",
      vars,
      want: false,
    },
    {
      expr: "authorizer.group('').resource('pods').check('get').errored()",
      vars: broken,
      want: true,
    },
    {
      expr: "authorizer.group('').resource('pods').check('get').error()",
      vars: broken,
      want: "webhook down",
    },
    {
      expr: "authorizer.group('').resource('pods').check('get').allowed()",
      vars: broken,
      want: false,
    },
  ]);
});
