import assert from "node:assert/strict";
import {
  apiServiceKind,
  validateAPIService,
  validateAPIServiceStatus,
} from "../../../../apiserver/registry/apiregistration/apiservices/strategy.ts";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";

function svc(name: string, spec: Record<string, unknown>): KubeObject {
  return { metadata: { name }, spec } as KubeObject;
}

const ok = {
  group: "wardle.example.com",
  version: "v1alpha1",
  groupPriorityMinimum: 1000,
  versionPriority: 15,
};

Deno.test("validateAPIService() has kube-aggregator's rules and messages", () => {
  assert.deepEqual(validateAPIService(svc("v1alpha1.wardle.example.com", ok)), []);
  assert.deepEqual(validateAPIService(svc("v1.", { ...ok, group: "", version: "v1" })), []);
  const msgs = (o: KubeObject) => validateAPIService(o).map((e) => `${e.field}: ${e.detail}`);
  assert.deepEqual(msgs(svc("wrong", ok)), [
    'metadata.name: must be `spec.version+"."+spec.group`: "v1alpha1.wardle.example.com"',
  ]);
  assert.deepEqual(msgs(svc("v2.", { ...ok, group: "", version: "v2" })), [
    "spec.group: only v1 may have an empty group and it better be legacy kube",
  ]);
  assert.deepEqual(
    msgs(
      svc("v1alpha1.wardle.example.com", {
        ...ok,
        groupPriorityMinimum: 20001,
        versionPriority: 0,
      }),
    ),
    [
      "spec.groupPriorityMinimum: must be positive and less than 20000",
      "spec.versionPriority: must be positive and less than 1000",
    ],
  );
  assert.deepEqual(
    msgs(
      svc("v1alpha1.wardle.example.com", { ...ok, caBundle: "AAAA", insecureSkipTLSVerify: true }),
    ),
    [
      "spec.caBundle: local APIServices may not have a caBundle",
      "spec.insecureSkipTLSVerify: local APIServices may not have insecureSkipTLSVerify",
    ],
  );
  assert.deepEqual(
    msgs(svc("v1alpha1.wardle.example.com", {
      ...ok,
      service: { port: 70000 },
      caBundle: "AAAA",
      insecureSkipTLSVerify: true,
    })),
    [
      "spec.service.namespace: ",
      "spec.service.name: ",
      "spec.service.port: port is not valid: must be between 1 and 65535, inclusive",
      "spec.insecureSkipTLSVerify: may not be true if caBundle is present",
    ],
  );
  const caErr =
    validateAPIService(svc("v1alpha1.wardle.example.com", { ...ok, caBundle: "AAAA" }))[0];
  assert.equal(caErr.value, "3 bytes");
});

Deno.test("validateAPIServiceStatus() allows True, False and Unknown", () => {
  const o = {
    metadata: { name: "x" },
    status: { conditions: [{ type: "Available", status: "Maybe" }] },
  };
  const [e] = validateAPIServiceStatus(o as KubeObject);
  assert.equal(e.field, "status.conditions[0].status");
  assert.equal(e.type, "FieldValueNotSupported");
});

Deno.test("apiServiceKind Table: SERVICE Local or ns/name, AVAILABLE True or False (Reason)", () => {
  const cells = (o: Record<string, unknown>) =>
    apiServiceKind.strategy.tableColumns!.cells(o as KubeObject, Date.now()).slice(0, 3);
  assert.deepEqual(
    cells({
      metadata: { name: "v1.apps" },
      spec: {},
      status: { conditions: [{ type: "Available", status: "True", reason: "Local" }] },
    }),
    ["v1.apps", "Local", "True"],
  );
  assert.deepEqual(
    cells({
      metadata: { name: "v1.w" },
      spec: { service: { namespace: "ns", name: "api" } },
      status: {
        conditions: [{ type: "Available", status: "False", reason: "FailedDiscoveryCheck" }],
      },
    }),
    ["v1.w", "ns/api", "False (FailedDiscoveryCheck)"],
  );
  assert.deepEqual(cells({ metadata: { name: "v1.x" }, spec: {} }), ["v1.x", "Local", "Unknown"]);
});
