import assert from "node:assert/strict";
import { AdmissionExpressionCompiler } from "../../../../apiserver/registry/admissionregistration/cel_expressions.ts";

const ALL = { params: true, variables: true, authorizer: true };

Deno.test("AdmissionExpressionCompiler.check() accepts expressions over the admission variables", () => {
  const c = new AdmissionExpressionCompiler();
  for (
    const e of [
      "object.metadata.name == oldObject.metadata.name",
      "request.operation == 'CREATE' && request.userInfo.username != ''",
      "params.max > 1 && variables.x == 2",
      "authorizer.group('apps').resource('deployments').check('get').allowed()",
      "authorizer.requestResource.check('update').allowed()",
      "namespaceObject.metadata.name == 'x'",
    ]
  ) assert.deepEqual(c.check("f", e, ALL, "bool"), [], e);
  assert.deepEqual(c.check("f", "'a' + string(1)", ALL, "string"), []);
  assert.deepEqual(c.check("f", "null", ALL, "string or null"), []);
});

Deno.test("AdmissionExpressionCompiler.check() rejects compile errors and wrong result types", () => {
  const c = new AdmissionExpressionCompiler();
  const none = { params: false, variables: false, authorizer: false };
  const [syntax] = c.check("f", "1 +", none, "bool");
  assert.equal(syntax.type, "FieldValueInvalid");
  assert.match(syntax.detail ?? "", /^compilation failed: ERROR: <input>:1:4: /);
  for (const e of ["params.x", "variables.x", "authorizer.path('/').check('get').allowed()"]) {
    assert.match(c.check("f", e, none, "bool")[0]?.detail ?? "", /^compilation failed/, e);
  }
  assert.match(c.check("f", "request.nope", ALL, "any")[0]?.detail ?? "", /compilation failed/);
  assert.equal(
    c.check("f", "'a'", ALL, "bool")[0]?.detail,
    "must evaluate to bool but got string",
  );
  assert.equal(
    c.check("f", "1", ALL, "string or null")[0]?.detail,
    "must evaluate to one of [string null_type] but got int",
  );
});
