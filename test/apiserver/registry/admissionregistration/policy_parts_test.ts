import assert from "node:assert/strict";
import {
  selectorText,
  validateParamKind,
  validateParamRef,
} from "../../../../apiserver/registry/admissionregistration/policy_parts.ts";
import { validatingAdmissionPolicyBindingKind } from "../../../../apiserver/registry/admissionregistration/validatingadmissionpolicybindings/strategy.ts";
import { fieldErrorMessage } from "../../../../shared/errors/status_error.ts";

Deno.test("selectorText() renders a label selector as Go's generated String() does", () => {
  assert.equal(
    selectorText({
      matchLabels: { b: "2", a: "1" },
      matchExpressions: [{ key: "k", operator: "In", values: ["x", "y"] }],
    }),
    "&LabelSelector{MatchLabels:map[string]string{a: 1,b: 2,}," +
      "MatchExpressions:[]LabelSelectorRequirement{LabelSelectorRequirement{Key:k,Operator:In,Values:[x y],},},}",
  );
});

Deno.test("the binding's ParamRef cell names the param, its namespace or its selector", () => {
  const cells = (paramRef?: unknown) =>
    validatingAdmissionPolicyBindingKind.strategy.tableColumns!.cells(
      { metadata: { name: "b" }, spec: { policyName: "p", paramRef } },
      Date.now(),
    ).slice(0, 3);
  assert.deepEqual(cells(), ["b", "p", "<unset>"]);
  assert.deepEqual(cells({ name: "x" }), ["b", "p", "*/x"]);
  assert.deepEqual(cells({ name: "x", namespace: "ns" }), ["b", "p", "ns/x"]);
  assert.deepEqual(cells({ selector: {} }), [
    "b",
    "p",
    "&LabelSelector{MatchLabels:map[string]string{},MatchExpressions:[]LabelSelectorRequirement{},}",
  ]);
});

Deno.test("validateParamKind() and validateParamRef() report Kubernetes' messages", () => {
  assert.deepEqual(validateParamKind("k", { apiVersion: "example.com/v1", kind: "Limits" }), []);
  assert.deepEqual(validateParamKind("k", {}).map(fieldErrorMessage), [
    "k.apiVersion: Required value",
    "k.kind: Required value",
  ]);
  assert.deepEqual(
    validateParamKind("k", { apiVersion: "a/b/c", kind: "K" }).map(fieldErrorMessage),
    [
      'k.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
    ],
  );
  assert.deepEqual(
    validateParamRef("r", { name: "n", selector: {}, parameterNotFoundAction: "Maybe" }).map(
      fieldErrorMessage,
    ),
    [
      "r.name: Forbidden: name and selector are mutually exclusive",
      "r.selector: Forbidden: name and selector are mutually exclusive",
      'r.parameterNotFoundAction: Unsupported value: "Maybe": supported values: "Deny", "Allow"',
    ],
  );
  assert.deepEqual(
    validateParamRef("r", { parameterNotFoundAction: "Allow" }).map(fieldErrorMessage),
    [
      "r: Required value: one of name or selector must be specified",
    ],
  );
});
