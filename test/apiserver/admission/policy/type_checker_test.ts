import assert from "node:assert/strict";
import {
  celGoWording,
  PolicyTypeChecker,
  typesToCheck,
} from "../../../../apiserver/admission/policy/type_checker.ts";
import { builtinSchemaModel } from "../../../../shared/api/schema/builtin_model.ts";

const KINDS: Record<string, string> = {
  "apps/v1/deployments": "Deployment",
  "apps/v1/statefulsets": "StatefulSet",
  "/v1/configmaps": "ConfigMap",
  "/v1/pods": "Pod",
};
const kindsFor = (group: string, version: string, resource: string) => {
  const kind = KINDS[`${group}/${version}/${resource}`];
  return kind ? [{ group, version, kind }] : [];
};

function policy(rules: Record<string, unknown>[], validations: unknown[], paramKind?: unknown) {
  return {
    metadata: { name: "p", generation: 1 },
    spec: { matchConstraints: { resourceRules: rules }, validations, paramKind },
  };
}

Deno.test("typesToCheck() skips wildcards and subresources and sorts the kinds", () => {
  const p = policy([
    { apiGroups: ["apps"], apiVersions: ["v1"], resources: ["statefulsets", "deployments", "*"] },
    { apiGroups: [""], apiVersions: ["v1"], resources: ["pods/status", "configmaps"] },
    { apiGroups: ["*"], apiVersions: ["v1"], resources: ["pods"] },
  ], []);
  assert.deepEqual(typesToCheck(p, kindsFor), [
    { group: "", version: "v1", kind: "ConfigMap" },
    { group: "apps", version: "v1", kind: "Deployment" },
    { group: "apps", version: "v1", kind: "StatefulSet" },
  ]);
});

Deno.test("PolicyTypeChecker.check() reports unknown fields per kind with typed params", () => {
  const checker = new PolicyTypeChecker(builtinSchemaModel(), kindsFor);
  const p = policy(
    [{ apiGroups: ["apps"], apiVersions: ["v1"], resources: ["deployments", "statefulsets"] }],
    [
      { expression: "object.spec.replicas <= int(params.data['max'])" },
      { expression: "object.spec.replicaz > 0", messageExpression: "params.spec.x" },
    ],
    { apiVersion: "v1", kind: "ConfigMap" },
  );
  const warnings = checker.check(p);
  assert.deepEqual(warnings.map((w) => w.fieldRef), [
    "spec.validations[1].expression",
    "spec.validations[1].messageExpression",
  ]);
  const lines = warnings[0].warning.split("\n");
  assert.match(
    lines[0],
    /^apps\/v1, Kind=Deployment: ERROR: <input>:1:13: undefined field 'replicaz'$/,
  );
  assert.ok(warnings[0].warning.includes("\n\napps/v1, Kind=StatefulSet: ERROR: "));
  assert.match(warnings[1].warning, /undefined field 'spec'/);
});

Deno.test("celGoWording() words operator overload errors as cel-go", () => {
  assert.equal(
    celGoWording("<input>:1:1: no such overload: string + int"),
    "<input>:1:1: found no matching overload for '_+_' applied to '(string, int)'",
  );
});
