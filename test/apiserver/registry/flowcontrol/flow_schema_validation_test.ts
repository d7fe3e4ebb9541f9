import assert from "node:assert/strict";
import { validateFlowSchema } from "../../../../apiserver/registry/flowcontrol/flow_schema_validation.ts";
import {
  mandatoryFlowSchemas,
  suggestedFlowSchemas,
} from "../../../../apiserver/registry/flowcontrol/bootstrap_configuration.ts";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { fieldErrorMessage } from "../../../../shared/errors/status_error.ts";

const errors = (o: KubeObject) => validateFlowSchema(o).map(fieldErrorMessage);

function schema(subject: Record<string, unknown>): KubeObject {
  return {
    metadata: { name: "s" },
    spec: {
      priorityLevelConfiguration: { name: "p" },
      matchingPrecedence: 10,
      rules: [{
        subjects: [subject],
        nonResourceRules: [{ verbs: ["get"], nonResourceURLs: ["/"] }],
      }],
    },
  };
}

Deno.test("validateFlowSchema() accepts the bootstrap schemas as they are", () => {
  for (const fs of [...mandatoryFlowSchemas(), ...suggestedFlowSchemas()]) {
    assert.deepEqual(errors(fs), [], String(fs.metadata.name));
  }
});

Deno.test("validateFlowSchema() checks each subject kind's member", () => {
  assert.deepEqual(errors(schema({ kind: "User", user: { name: "u" }, group: { name: "g" } })), [
    "spec.rules[0].subjects[0].group: Forbidden: group is forbidden when subject kind is not 'Group'",
  ]);
  assert.deepEqual(errors(schema({ kind: "Group" })), [
    "spec.rules[0].subjects[0].group: Required value: group is required when subject kind is 'Group'",
  ]);
  assert.deepEqual(
    errors(schema({ kind: "ServiceAccount", serviceAccount: { name: "Bad_Name" } })),
    [
      'spec.rules[0].subjects[0].serviceAccount.name: Invalid value: "Bad_Name": a lowercase RFC ' +
      "1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must " +
      "start and end with an alphanumeric character (e.g. 'example.com', regex used for " +
      "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      "spec.rules[0].subjects[0].serviceAccount.namespace: Required value: must specify " +
      "namespace for service account",
    ],
  );
});
